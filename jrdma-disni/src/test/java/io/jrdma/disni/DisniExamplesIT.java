package io.jrdma.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import io.jrdma.disni.apps.ExampleMain;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * DiSNI's own examples ({@code SendRecv}, {@code Read}, {@code Verbs}, server and client, with {@code VerbsTools} and
 * the command line they share), compiled unchanged from a checkout of DiSNI against this module's classes and run as
 * a server JVM and a client JVM over siw0 and over RoCEv2 (rxe0 on 127.0.0.1, rxe1 on 127.0.0.2) on loopback. Each
 * JVM runs the example's {@code main} through {@link ExampleMain}, which tells when the server listens; both must exit
 * 0 and print the data the other side sent or exposed. The checkout is the user's: without {@code -Ddisni.src} (or
 * {@code DISNI_SRC}) every case is skipped.
 */
@Timeout(300)
class DisniExamplesIT {
    private static final String HOW_TO_ENABLE = "DiSNI's examples are not part of this build. To compile them "
            + "unchanged against jrdma-disni and run them as two JVMs over siw0 and rxe, name a checkout of "
            + "https://github.com/zrlio/disni (v2.1) with -Ddisni.src=PATH or DISNI_SRC=PATH: mvn verify -pl "
            + "jrdma-disni -am -Dit.test=DisniExamplesIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false "
            + "-Dfailsafe.failIfNoSpecifiedTests=false -Ddisni.src=PATH";
    /** Where the examples' sources sit in DiSNI's tree. */
    private static final String EXAMPLES_ROOT = "src/test/java/com/ibm/disni";
    private static final String PACKAGE = "com.ibm.disni.examples.";
    private static final String HOST = "127.0.0.1";
    /** What VerbsClient and VerbsServer print before they give up on an unexpected CM event (and exit 0). */
    private static final String WRONG_EVENT = "wrong event received";
    /** How long a server may take to close down once its client ended (a few seconds when it works). */
    private static final long SERVER_AFTER_CLIENT_S = 30;
    /** What ReadServer and VerbsServer put in the buffer the client reads, around the buffer's key. */
    private static final String READ_TEXT = "This is a RDMA/read on stag %d !";
    private static final Pattern KEY =
            Pattern.compile("receiving rdma information, addr -?\\d+, length \\d+, key (-?\\d+)");

    private static Path classes;

    /** The transports, each as the server's and the client's JVM options. */
    enum Transport {
        SIW(List.of("-Djrdma.siw.addresses=127.0.0.1"), List.of("-Djrdma.siw.addresses=127.0.0.1")),
        RXE(List.of("-Djrdma.rxe.devices=rxe0:127.0.0.1", "-Djrdma.disni.devices=rxe0"),
                List.of("-Djrdma.rxe.devices=rxe1:127.0.0.2", "-Djrdma.disni.devices=rxe1"));

        final List<String> server;
        final List<String> client;

        Transport(List<String> server, List<String> client) {
            this.server = server;
            this.client = client;
        }
    }

    /** DiSNI's example pairs, by the prefix of their {@code Server} and {@code Client} classes. */
    enum Example {
        SendRecv, Read, Verbs
    }

    static Stream<Arguments> pairs() {
        List<Arguments> all = new ArrayList<>();
        for (Transport t : Transport.values()) {
            for (Example e : Example.values()) {
                all.add(Arguments.of(e, t));
            }
        }
        return all.stream();
    }

    /** The checkout named by {@code -Ddisni.src} or {@code DISNI_SRC}, or blank. */
    private static String checkout() {
        String src = System.getProperty("disni.src", "");
        return src.isBlank() ? System.getenv().getOrDefault("DISNI_SRC", "") : src;
    }

    /** Compiles {@code CmdLineCommon} and everything under {@code examples/} from the checkout into target/. */
    @BeforeAll
    static void compileTheExamplesFromTheCheckout() throws IOException {
        String src = checkout();
        if (src.isBlank()) {
            return;
        }
        Path root = Path.of(src).toAbsolutePath().resolve(EXAMPLES_ROOT);
        assertThat(root.resolve("examples")).as("DiSNI's examples in the checkout " + src).isDirectory();
        List<Path> sources = new ArrayList<>();
        sources.add(root.resolve("CmdLineCommon.java"));
        try (Stream<Path> files = Files.walk(root.resolve("examples"))) {
            files.filter(f -> f.toString().endsWith(".java")).sorted().forEach(sources::add);
        }
        classes = Path.of("target", "disni-examples", "classes").toAbsolutePath();
        if (Files.exists(classes)) {
            try (Stream<Path> old = Files.walk(classes)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        // The compile class path is jrdma-disni's classes and its test class path (commons-cli for CmdLineCommon),
        // without this module's test classes.
        List<String> options = List.of("-d", classes.toString(), "-cp", TwoJvms.classPath("test-classes"),
                "-proc:none", "-nowarn", "-encoding", "UTF-8");
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
            Boolean ok = javac.getTask(diagnostics, files, null, options, null,
                    files.getJavaFileObjectsFromPaths(sources)).call();
            assertThat(ok).as("javac of DiSNI's examples " + sources + " against jrdma-disni:\n" + diagnostics)
                    .isTrue();
        }
        for (Example e : Example.values()) {
            assertThat(classes.resolve("com/ibm/disni/examples/" + e + "Server.class")).isRegularFile();
            assertThat(classes.resolve("com/ibm/disni/examples/" + e + "Client.class")).isRegularFile();
        }
    }

    /** Each case is skipped, and says how to enable it, when no checkout is named. */
    @BeforeEach
    void needsACheckoutOfDisni() {
        assumeTrue(!checkout().isBlank(), HOW_TO_ENABLE);
    }

    @ParameterizedTest(name = "{0}Server and {0}Client over {1}")
    @MethodSource("pairs")
    void theExampleRunsAsServerAndClientJvms(Example example, Transport transport) throws Exception {
        String port = Integer.toString(TwoJvms.freePort());
        String tag = example + "-" + transport;
        Path work = classes.getParent();
        Path slog = work.resolve(tag + "-server.log");
        Path clog = work.resolve(tag + "-client.log");
        // The examples first, then jrdma-disni, jrdma and ExampleMain (this module's test classes).
        String cp = classes + File.pathSeparator + System.getProperty("java.class.path");
        Process server = null;
        Process client = null;
        try {
            server = TwoJvms.start(cp, transport.server, ExampleMain.class.getName(), slog, "--server",
                    PACKAGE + example + "Server", "-a", HOST, "-p", port);
            TwoJvms.awaitLine(server, slog, ExampleMain.READY);
            client = TwoJvms.start(cp, transport.client, ExampleMain.class.getName(), clog,
                    PACKAGE + example + "Client", "-a", HOST, "-p", port);
            TwoJvms.Outcome c = TwoJvms.finish(client, clog, TwoJvms.JVM_TIMEOUT_S, "\n(the server's output: " + slog
                    + ")");
            String clientSide = "\n--- " + example + "Client over " + transport + ":\n" + shown(c);
            boolean clientFailed = c.exit() != 0 || c.log().contains(WRONG_EVENT);
            if (clientFailed) {
                // the server would wait for a client that is gone: its output so far is all there is
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            TwoJvms.Outcome s = TwoJvms.finish(server, slog, SERVER_AFTER_CLIENT_S, clientSide);
            String both = clientSide + "\n--- " + example + "Server" + (clientFailed ? " (killed)" : "") + ":\n"
                    + shown(s);
            assertThat(c.exit()).as("the client's exit status" + both).isZero();
            assertThat(c.log()).as("the client's output" + both).doesNotContain(WRONG_EVENT);
            assertThat(s.exit()).as("the server's exit status" + both).isZero();
            assertThat(s.log()).as("the server's output" + both).doesNotContain(WRONG_EVENT);
            switch (example) {
                case SendRecv -> sendRecv(c, s, both);
                case Read -> read(c, s, both);
                case Verbs -> verbs(c, s, both);
                default -> throw new AssertionError(example);
            }
        } finally {
            for (Process p : new Process[] {client, server}) {
                if (p != null && p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** Each side sends a message and prints the other's. */
    private static void sendRecv(TwoJvms.Outcome c, TwoJvms.Outcome s, String both) {
        List<String> cl = inOrder(c, both, "SimpleClient::client channel set up",
                "SimpleClient::message sent, wr_id 4444", "SimpleClient::message received", "Message from the server: ",
                "endpoint closed", "group closed");
        assertThat(cl.get(3)).as(both).isEqualTo("Message from the server: Hello from the server");
        List<String> sl = inOrder(s, both, "SimpleServer::servers bound to address",
                "SimpleServer::client connection accepted", "SimpleServer::message received",
                "Message from the client: ", "SimpleServer::message sent", "client endpoint closed",
                "server endpoint closed", "group closed");
        assertThat(sl.get(3)).as(both).isEqualTo("Message from the client: Hello from the client");
    }

    /**
     * The client RDMA-READs the server's buffer ten times through one prepared call whose length it raises by 10
     * bytes each time, so the k-th read shows the first 5k characters of the text, which names the key it came with.
     */
    private static void read(TwoJvms.Outcome c, TwoJvms.Outcome s, String both) {
        String[] marks = new String[14];
        marks[0] = "ReadClient::client connected";
        marks[1] = "ReadClient::receiving rdma information";
        for (int k = 0; k < 10; k++) {
            marks[2 + k] = "ReadClient::read memory from server: ";
        }
        marks[12] = "closing endpoint";
        marks[13] = "closing endpoint, done";
        List<String> cl = inOrder(c, both, marks);
        String text = readText(cl.get(1), both);
        for (int k = 1; k <= 10; k++) {
            String shown = text.substring(0, Math.min(5 * k, text.length()));
            assertThat(cl.get(1 + k)).as("read " + k + ", of " + 10 * k + " bytes\n" + both)
                    .isEqualTo("ReadClient::read memory from server: " + shown);
        }
        inOrder(s, both, "ReadServer::server bound to address", "ReadServer::connection accepted",
                "ReadServer::sending message", "ReadServer::final message");
    }

    /** The client on the raw verbs reads the server's whole buffer, whose address and key the server sent it. */
    private static void verbs(TwoJvms.Outcome c, TwoJvms.Outcome s, String both) {
        List<String> cl = inOrder(c, both, "VerbsClient::starting...", "VerbsClient::receiving rdma information",
                "VerbsClient::preparing read operation...", "VerbsClient::read memory from server: ");
        assertThat(cl.get(3)).as(both).isEqualTo("VerbsClient::read memory from server: " + readText(cl.get(1), both));
        inOrder(s, both, "VerbsServer::starting...", "VerbsServer::initiated recv, about to send stag info",
                "VerbsServer::stag info sent", "VerbsServer::done");
    }

    /** A JVM's output for a message (a buffer printed as characters ends in NULs; they are left out). */
    private static String shown(TwoJvms.Outcome o) {
        return o.log().replace("\0", "");
    }

    /** The text the server put in the buffer whose key the client printed on {@code line}. */
    private static String readText(String line, String both) {
        Matcher m = KEY.matcher(line);
        assertThat(m.find()).as("the key in '" + line + "'\n" + both).isTrue();
        return READ_TEXT.formatted(Integer.parseInt(m.group(1)));
    }

    /**
     * The lines of {@code o} that contain the {@code marks}, in that order (a buffer printed as characters ends in
     * NULs; they are left out).
     */
    private static List<String> inOrder(TwoJvms.Outcome o, String both, String... marks) {
        List<String> found = new ArrayList<>();
        int at = 0;
        for (String mark : marks) {
            while (at < o.lines().size() && !o.lines().get(at).contains(mark)) {
                at++;
            }
            assertThat(at).as("a line with '" + mark + "' after " + found + "\n" + both).isLessThan(o.lines().size());
            found.add(o.lines().get(at).replace("\0", ""));
            at++;
        }
        return found;
    }
}
