package io.jrdma.disni;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a DiSNI application as a server JVM and a client JVM, as a user would: {@code java -cp ... Main args}.
 * Every wait is bounded; a JVM still running at its bound is killed and the test fails with its output.
 */
final class TwoJvms {
    static final long JVM_TIMEOUT_S = 90;
    private static final long READY_TIMEOUT_MS = 60_000;

    /** The outcome of one JVM. */
    record Outcome(int exit, List<String> lines, String log) {
    }

    private TwoJvms() {
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static Process start(String classPath, List<String> jvmOptions, String main, Path log, String... args)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xss1m");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(main);
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits (bounded) until the server's output has a line containing {@code text}. */
    static void awaitLine(Process p, Path log, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text)) {
                return;
            }
            if (!p.isAlive()) {
                throw new AssertionError("the server ended before printing '" + text + "':\n" + Files.readString(log));
            }
            p.waitFor(50, TimeUnit.MILLISECONDS);
        }
        p.destroyForcibly();
        throw new AssertionError("no '" + text + "' from the server in " + READY_TIMEOUT_MS + " ms:\n"
                + Files.readString(log));
    }

    static Outcome finish(Process p, Path log) throws IOException, InterruptedException {
        return finish(p, log, JVM_TIMEOUT_S, "");
    }

    /**
     * Waits at most {@code timeoutS} for {@code p} to end; on timeout kills it and fails with its output, then
     * {@code context} (the other JVM's output, say).
     */
    static Outcome finish(Process p, Path log, long timeoutS, String context) throws IOException, InterruptedException {
        if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("JVM still running after " + timeoutS + " s:\n" + Files.readString(log)
                    + context);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        return new Outcome(p.exitValue(), out.lines().toList(), out);
    }

    /** This JVM's class path without the entries {@code drop} matches (a path fragment). */
    static String classPath(String... drop) {
        List<String> keep = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            boolean dropped = false;
            for (String d : drop) {
                dropped |= e.contains(d);
            }
            if (!dropped) {
                keep.add(e);
            }
        }
        return String.join(File.pathSeparator, keep);
    }
}
