package io.jrdma.bench;

import io.jrdma.siw.SiwConfig;
import io.jrdma.tools.Jrdma;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerftestFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tools as users run them: a server and a client, each a JVM of its own started as {@code bin/jrdma}
 * starts one ({@link #JVM_FLAGS}, this JVM's class path, {@code io.jrdma.tools.Jrdma TOOL ...}), with the
 * tools' default options. The server starts first; once it prints that it waits for a client
 * ({@link #READY}) the client starts with the host argument; both must end within {@link #PAIR_TIMEOUT} and
 * exit 0, or both are killed and the run fails. The figure is read from the client's perftest table.
 *
 * <p>siw runs both sides on siw0 over 127.0.0.1. rxe needs a device per process: the server's rxe0 on
 * {@value #RXE_SERVER_ADDRESS}, the client's rxe1 on {@value #RXE_CLIENT_ADDRESS} ({@code JRDMA_RXE},
 * {@code --bind}, {@code --source_ip}), away from the in-JVM runs' 127.0.0.1 and 127.0.0.2.
 */
final class TwoProcess {
    /** The first port; each pair of processes takes the next, so a rerun does not meet its predecessor's. */
    static final int FIRST_PORT = 24_100;
    /** How long the server may take to say it waits for a client (a JVM's start on a loaded host). */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    /**
     * How long the server and the client may take together: rxe's {@code write-bw -s 1M} moves its default
     * 5,000 MiB in about 115 s at the 46 MB/s a loaded host gave it.
     */
    static final Duration PAIR_TIMEOUT = Duration.ofSeconds(300);
    /** What a server prints once it listens ({@link PerftestFormat#WAITING_FOR_CLIENT}). */
    static final String READY = "Waiting for client to connect";
    /** The children's JVM flags: those of {@code bin/jrdma}. */
    static final List<String> JVM_FLAGS = List.of("-XX:+UseSerialGC", "-XX:-UsePerfData",
            "--enable-native-access=ALL-UNNAMED");
    /** The rxe server's address. */
    static final String RXE_SERVER_ADDRESS = "127.0.0.3";
    /** The rxe client's address. */
    static final String RXE_CLIENT_ADDRESS = "127.0.0.4";
    /** Lines of a failed child's output quoted in the failure. */
    private static final int TAIL_LINES = 6;
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(FIRST_PORT);

    private TwoProcess() {
    }

    /**
     * One paired comparison: a jrdma tool against the raw floor tool, each as two processes.
     *
     * @param transport siw or rxe
     * @param tool the jrdma tool, e.g. {@code write-lat}
     * @param args its options beyond the defaults (the size), without device, address or port
     * @param floorTool the floor, e.g. {@code tcp-lat}
     * @param floorArgs its options beyond the defaults
     * @param bandwidth whether higher is better (bandwidth) or lower (latency)
     * @param target jrdma over the floor must be at least this (bandwidth) or at most this (latency)
     */
    record Case(Transport transport, String tool, List<String> args, String floorTool, List<String> floorArgs,
            boolean bandwidth, double target) {
        /** Checks the fields. */
        Case {
            if (transport == Transport.LOOP) {
                throw new IllegalArgumentException("loop0 lives in one process");
            }
            args = List.copyOf(args);
            floorArgs = List.copyOf(floorArgs);
        }

        /** The floor's transport: {@code tcp} or {@code udp}. */
        String floorTransport() {
            return floorTool.substring(0, 3);
        }

        /** The target as text, e.g. {@code <= 1.3x tcp-lat}. */
        String targetText() {
            return String.format(Locale.ROOT, "%s %.1fx %s", bandwidth ? ">=" : "<=", target, floorTool);
        }

        /** Whether {@code ratio} (jrdma over the floor) meets the target. */
        boolean met(double ratio) {
            return bandwidth ? ratio >= target : ratio <= target;
        }

        /** A short name, e.g. {@code write-bw -s 1M rxe}. */
        String label() {
            return tool + (args.isEmpty() ? "" : " " + String.join(" ", args)) + " " + transport.label();
        }
    }

    /**
     * The pairs run over {@code t}: write-lat (its default size) against tcp-lat over siw and udp-lat over
     * rxe; write-bw of 1 MiB against tcp-bw of 1 MiB over siw and against udp-bw of rxe's 1 KiB payload per
     * packet over rxe.
     */
    static List<Case> cases(Transport t) {
        return switch (t) {
            case SIW -> List.of(
                    new Case(t, "write-lat", List.of(), "tcp-lat", List.of(), false, Bench.TWO_PROCESS_LAT_TARGET),
                    new Case(t, "write-bw", List.of("-s", "1M"), "tcp-bw", List.of("-s", "1M"), true,
                            Bench.TWO_PROCESS_SIW_BW_TARGET));
            case RXE -> List.of(
                    new Case(t, "write-lat", List.of(), "udp-lat", List.of(), false, Bench.TWO_PROCESS_LAT_TARGET),
                    new Case(t, "write-bw", List.of("-s", "1M"), "udp-bw", List.of("-s", String.valueOf(Bench.RXE_MTU)),
                            true, Bench.TWO_PROCESS_RXE_BW_TARGET));
            case LOOP -> List.of();
        };
    }

    /**
     * One side's process: environment variables to set, JVM options beyond {@link #JVM_FLAGS}, and the
     * tool's arguments after its name and port.
     *
     * @param env environment variables (JRDMA_RXE is removed unless named here)
     * @param jvmOptions e.g. {@code -Djrdma.siw.tcpCongestion=reno}
     * @param args the tool's arguments
     */
    record Side(Map<String, String> env, List<String> jvmOptions, List<String> args) {
        /** Copies the fields. */
        Side {
            env = Map.copyOf(env);
            jvmOptions = List.copyOf(jvmOptions);
            args = List.copyOf(args);
        }
    }

    /**
     * The jrdma tool's two sides of {@code c}. With {@code tcpCongestion} (not {@code null}) siw's sockets run
     * that algorithm, as the floor's do; {@code jrdma.rxe.appDriven}, when this JVM was given it, is passed on
     * so the children run rxe's engine in the mode this JVM reports.
     */
    static Side[] jrdmaSides(Case c, String tcpCongestion) {
        List<String> jvm = new ArrayList<>();
        String rxeMode = System.getProperty("jrdma.rxe.appDriven");
        if (c.transport() == Transport.RXE && rxeMode != null) {
            jvm.add("-Djrdma.rxe.appDriven=" + rxeMode);
        }
        if (c.transport() == Transport.SIW && tcpCongestion != null) {
            jvm.add("-Djrdma.siw.tcpCongestion=" + tcpCongestion);
        }
        List<String> server = new ArrayList<>(c.args());
        List<String> client = new ArrayList<>(c.args());
        if (c.transport() == Transport.SIW) {
            server.addAll(List.of("-d", "siw0"));
            client.addAll(List.of("-d", "siw0", "127.0.0.1"));
            return new Side[] {new Side(Map.of(), jvm, server), new Side(Map.of(), jvm, client)};
        }
        server.addAll(List.of("-d", "rxe0", "--bind", RXE_SERVER_ADDRESS));
        client.addAll(List.of("-d", "rxe1", "--source_ip", RXE_CLIENT_ADDRESS, RXE_SERVER_ADDRESS));
        return new Side[] {new Side(Map.of("JRDMA_RXE", "rxe0:" + RXE_SERVER_ADDRESS), jvm, server),
            new Side(Map.of("JRDMA_RXE", "rxe1:" + RXE_CLIENT_ADDRESS), jvm, client)};
    }

    /** The floor tool's two sides of {@code c} ({@code --tcp-cc} on TCP when {@code tcpCongestion} is set). */
    static Side[] floorSides(Case c, String tcpCongestion) {
        List<String> server = new ArrayList<>(c.floorArgs());
        if (tcpCongestion != null && c.floorTransport().equals("tcp")) {
            server.addAll(List.of("--tcp-cc", tcpCongestion));
        }
        List<String> client = new ArrayList<>(server);
        client.add("127.0.0.1");
        return new Side[] {new Side(Map.of(), List.of(), server), new Side(Map.of(), List.of(), client)};
    }

    /**
     * The figure a tool's client printed: the first row under the last perftest column header.
     *
     * @param bytes the message size of the row
     * @param value bandwidth (MB/s, {@code BW average}) or latency (us, {@code t_typical}, or {@code t_avg}
     *     when the table has no typical latency)
     * @param p99 the 99th percentile latency in us, NaN for bandwidth or when not printed
     * @param statistic which column {@code value} is: {@code BW average}, {@code t_typical} or {@code t_avg}
     * @param unit {@code MB/s} or {@code us}
     */
    record Figure(long bytes, double value, double p99, String statistic, String unit) {
    }

    /**
     * Reads the result row of a tool's output: a perftest table in MB/sec (bandwidth) or usec (latency, by
     * iterations or by duration), with any notice lines between its header and its row skipped.
     *
     * @param lines the tool's output
     * @return the figure
     * @throws IllegalArgumentException when the output has no such table or its row is not numbers
     */
    static Figure parse(List<String> lines) {
        for (int i = lines.size() - 2; i >= 0; i--) {
            String header = lines.get(i).strip();
            if (!header.startsWith("#bytes")) {
                continue;
            }
            String row = resultRow(lines, i);
            String[] cell = row.strip().split("\\s+");
            if (header.equals(PerftestFormat.BW_HEADER_MB.strip())) {
                need(cell, 5, row);
                return new Figure(bytes(cell[0], row), number(cell[3], row), Double.NaN, "BW average", "MB/s");
            }
            if (header.equals(PerftestFormat.LAT_HEADER.strip())) {
                need(cell, 9, row);
                return new Figure(bytes(cell[0], row), number(cell[4], row), number(cell[7], row), "t_typical", "us");
            }
            if (header.equals(PerftestFormat.LAT_DURATION_HEADER.strip())) {
                need(cell, 4, row);
                return new Figure(bytes(cell[0], row), number(cell[2], row), Double.NaN, "t_avg", "us");
            }
            throw new IllegalArgumentException("a result table in other units than MB/sec or usec: " + header);
        }
        throw new IllegalArgumentException("no result table in the output" + tail(lines));
    }

    /**
     * The row after the table header at {@code header}: the first line that starts with a number. The tools'
     * notices on standard error (jrdma's warm-up, perftest's warnings) may come between the two when both
     * streams are read as one.
     */
    private static String resultRow(List<String> lines, int header) {
        for (int j = header + 1; j < lines.size(); j++) {
            String line = lines.get(j).strip();
            if (!line.isEmpty() && Character.isDigit(line.charAt(0))) {
                return lines.get(j);
            }
            if (line.startsWith("#") || line.startsWith("---")) {
                break;
            }
        }
        return header + 1 < lines.size() ? lines.get(header + 1) : "";
    }

    private static void need(String[] cells, int n, String row) {
        if (cells.length < n) {
            throw new IllegalArgumentException("a result row of " + cells.length + " columns, not " + n + ": " + row);
        }
    }

    private static long bytes(String s, String row) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("no message size in the result row: " + row, e);
        }
    }

    private static double number(String s, String row) {
        double v;
        try {
            v = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a figure (" + s + ") in the result row: " + row, e);
        }
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("not a figure (" + s + ") in the result row: " + row);
        }
        return v;
    }

    /**
     * Runs {@code tool} as a server and a client process and returns the client's figure.
     *
     * @throws ToolFailure when a side cannot start, the server does not say it waits within
     *     {@link #READY_TIMEOUT}, the pair does not end within {@link #PAIR_TIMEOUT}, a side exits non-zero, or
     *     the client printed no result
     */
    static Figure run(String tool, Side server, Side client) {
        int port = NEXT_PORT.getAndIncrement();
        long start = System.nanoTime();
        long deadline = start + PAIR_TIMEOUT.toNanos();
        try (Child s = Child.start(command(tool, port, server), server.env(), tool + "-server")) {
            if (!s.awaitReady(start + READY_TIMEOUT.toNanos())) {
                throw new ToolFailure(tool + " server (port " + port + ") did not say it waits for a client within "
                        + READY_TIMEOUT.toSeconds() + " s" + s.describe());
            }
            try (Child c = Child.start(command(tool, port, client), client.env(), tool + "-client")) {
                if (!c.awaitExit(deadline) || !s.awaitExit(deadline)) {
                    throw new ToolFailure(tool + " server and client did not end within " + PAIR_TIMEOUT.toSeconds()
                            + " s; killed" + c.describe());
                }
                if (c.exitCode() != 0) {
                    throw new ToolFailure(tool + " client exited with " + c.exitCode() + c.describe());
                }
                if (s.exitCode() != 0) {
                    throw new ToolFailure(tool + " server exited with " + s.exitCode() + s.describe());
                }
                try {
                    return parse(c.lines());
                } catch (IllegalArgumentException e) {
                    throw new ToolFailure(tool + " client: " + e.getMessage(), e);
                }
            }
        }
    }

    /**
     * The verdict on paired runs: the median pair (the pair whose jrdma-to-floor ratio is the median, see
     * {@link Bench#medianPair}) and whether its ratio meets the target.
     *
     * @param pair the index of the median pair
     * @param ratio its jrdma-to-floor ratio
     * @param met whether the ratio meets the target
     */
    record Verdict(int pair, double ratio, boolean met) {
    }

    /**
     * Judges paired runs of {@code c}: {@code jrdma[i]} and {@code floor[i]} ran one after the other.
     *
     * @throws IllegalArgumentException without pairs or when the arrays differ in length
     */
    static Verdict judge(Case c, double[] jrdma, double[] floor) {
        if (jrdma.length != floor.length) {
            throw new IllegalArgumentException(jrdma.length + " jrdma runs against " + floor.length + " floor runs");
        }
        double[] ratio = new double[jrdma.length];
        for (int i = 0; i < ratio.length; i++) {
            ratio[i] = jrdma[i] / floor[i];
        }
        int m = Bench.medianPair(ratio, c.bandwidth());
        return new Verdict(m, ratio[m], c.met(ratio[m]));
    }

    /** The command line of one side. */
    static List<String> command(String tool, int port, Side side) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(side.jvmOptions());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Jrdma.class.getName());
        cmd.add(tool);
        cmd.add("-p");
        cmd.add(String.valueOf(port));
        cmd.addAll(side.args());
        return cmd;
    }

    private static String tail(List<String> lines) {
        List<String> last = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
        return last.isEmpty() ? " (no output)" : ": " + String.join(" | ", last).strip();
    }

    /** A child process and the lines it printed (stdout and stderr). */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
        private final Thread reader;

        private Child(Process process, String name) {
            this.process = process;
            this.reader = Thread.ofPlatform().daemon().name("bench-" + name).start(this::read);
        }

        static Child start(List<String> command, Map<String, String> env, String name) {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().remove("JRDMA_RXE");
            pb.environment().putAll(env);
            try {
                return new Child(pb.start(), name);
            } catch (IOException e) {
                throw new ToolFailure("cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
            }
        }

        private void read() {
            try (BufferedReader r = process.inputReader()) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    lines.add(l);
                    if (l.contains(READY)) {
                        ready.complete(true);
                    }
                }
            } catch (IOException e) {
                // the process is gone; what it printed is kept
            } finally {
                ready.complete(false);
            }
        }

        /** Whether the ready line came by {@code deadline} (false: it exited or the time ran out). */
        boolean awaitReady(long deadline) {
            try {
                return ready.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Whether the process ended by {@code deadline}; its output is then read to the end. */
        boolean awaitExit(long deadline) {
            try {
                if (!process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return false;
                }
                reader.join(Duration.ofSeconds(5));
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        int exitCode() {
            return process.exitValue();
        }

        List<String> lines() {
            synchronized (lines) {
                return List.copyOf(lines);
            }
        }

        String describe() {
            return tail(lines());
        }

        /** Kills the process (and anything it started) unless it has ended. */
        @Override
        public void close() {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                try {
                    process.waitFor(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The siw mode the children run: siw's defaults. */
    static String siwMode() {
        return SiwConfig.defaults().applicationDriven() ? "app-driven" : "engine";
    }
}
