/**
 * The {@code jrdma} command line: the launcher ({@link io.jrdma.tools.Jrdma}), perftest-compatible
 * reporting ({@code io.jrdma.tools.perf}) shared by every measuring tool, the raw TCP/UDP baselines
 * ({@code io.jrdma.tools.baseline}) and the plumbing the tools share ({@code io.jrdma.tools.cli}).
 *
 * <p>picocli 4.7.7 ships an explicit descriptor ({@code info.picocli}); HdrHistogram 2.2.2 has neither
 * a descriptor nor an {@code Automatic-Module-Name}, so its automatic name comes from the jar name:
 * {@code HdrHistogram}. The command packages are opened to picocli, which reads the annotated fields
 * reflectively.
 */
@SuppressWarnings("requires-automatic")
module io.jrdma.tools {
    requires io.jrdma.core;
    // TcpCongestion, for the TCP baselines' --tcp-cc; the transports are otherwise found by ServiceLoader.
    requires io.jrdma.siw;
    requires java.management;
    requires java.logging;
    requires java.management.rmi;
    requires jdk.attach;
    requires info.picocli;
    requires HdrHistogram;

    exports io.jrdma.tools;
    exports io.jrdma.tools.cli;
    exports io.jrdma.tools.perf;
    exports io.jrdma.tools.baseline;
    exports io.jrdma.tools.rdma;
    exports io.jrdma.tools.rping;
    exports io.jrdma.tools.perftest;
    exports io.jrdma.tools.demo;
    exports io.jrdma.tools.devices;
    exports io.jrdma.tools.cmatose;
    exports io.jrdma.tools.stats;

    opens io.jrdma.tools to info.picocli;
    opens io.jrdma.tools.cli to info.picocli;
    opens io.jrdma.tools.baseline to info.picocli;
    opens io.jrdma.tools.rping to info.picocli;
    opens io.jrdma.tools.perftest to info.picocli;
    opens io.jrdma.tools.demo to info.picocli;
    opens io.jrdma.tools.devices to info.picocli;
    opens io.jrdma.tools.cmatose to info.picocli;
    opens io.jrdma.tools.stats to info.picocli;
}
