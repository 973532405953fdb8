package io.jrdma.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A program (e.g. {@link PeerMain}) in a child JVM (optionally inside a network namespace, through {@code ip netns
 * exec}): started with the test's class path, its output read line by line with deadlines, commands sent
 * on its stdin; it can be killed (SIGKILL) or stopped and continued (SIGSTOP/SIGCONT). Always closed in a
 * finally block: the process is killed if still alive.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final OutputStream stdin;

    private ChildJvm(Process p) {
        this.process = p;
        this.stdin = p.getOutputStream();
        Thread.ofVirtual().name("child-stdout").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException e) {
                // the child is gone
            }
        });
    }

    /**
     * Starts {@code main} with {@code properties} (-D... and other JVM options) and {@code args}, with the
     * test's class path, in network namespace {@code netns} unless {@code null}.
     */
    public static ChildJvm start(String netns, List<String> properties, Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>();
        if (netns != null) {
            cmd.addAll(List.of("ip", "netns", "exec", netns));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Xmx1g");
        cmd.addAll(properties);
        cmd.add("-cp");
        cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new ChildJvm(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    /** The next line starting with {@code prefix} (earlier lines are skipped), within {@code timeout}. */
    public String expect(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String l = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (l == null) {
                    throw new AssertionError("child did not print '" + prefix + "' within " + timeout
                            + (process.isAlive() ? "" : " (it exited with " + process.exitValue() + ")"));
                }
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Sends a command line. */
    public void command(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("child stdin", e);
        }
    }

    /** Kills the process (SIGKILL) and waits for it, at most 10 s. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends {@code signal} (e.g. STOP, CONT) to the process. */
    public void signal(String signal) {
        try {
            Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new AssertionError("kill -" + signal + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits for the process to end by itself.
     *
     * @param timeout the longest wait
     * @return its exit code
     * @throws AssertionError if it still runs after {@code timeout}
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new AssertionError("child still running after " + timeout);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Whether the process still runs. */
    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            signal("CONT");
            kill();
        }
    }
}
