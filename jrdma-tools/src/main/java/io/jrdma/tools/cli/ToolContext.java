package io.jrdma.tools.cli;

import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What a tool writes to and knows about its surroundings: stdout for the report, stderr for errors
 * and progress, and whether a person is watching (a terminal), which turns on progress lines.
 *
 * <p>{@link #system()} is the real process; {@link #captured()} collects both streams in memory so a
 * test (or the benchmark) can run a tool in-process and read what it printed.
 */
public final class ToolContext {

    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;
    private final ByteArrayOutputStream outBuffer;
    private final ByteArrayOutputStream errBuffer;

    private ToolContext(PrintStream out, PrintStream err, boolean terminal, ByteArrayOutputStream outBuffer,
            ByteArrayOutputStream errBuffer) {
        this.out = out;
        this.err = err;
        this.terminal = terminal;
        this.outBuffer = outBuffer;
        this.errBuffer = errBuffer;
    }

    /**
     * A context over the given streams.
     *
     * @param out where reports go
     * @param err where errors and progress go
     * @param terminal whether progress lines may be shown
     * @return the context
     */
    public static ToolContext of(PrintStream out, PrintStream err, boolean terminal) {
        if (out == null || err == null) {
            throw new IllegalArgumentException("out and err are required");
        }
        return new ToolContext(out, err, terminal, null, null);
    }

    /**
     * The process's own streams. A terminal is assumed when the JVM's console is one: since JDK 22
     * {@link System#console()} also returns a console when the streams are redirected, so
     * {@link Console#isTerminal()} decides.
     *
     * @return the context
     */
    public static ToolContext system() {
        Console c = System.console();
        return new ToolContext(System.out, System.err, c != null && c.isTerminal(), null, null);
    }

    /**
     * A context that collects stdout and stderr in memory (UTF-8), not a terminal.
     *
     * @return the context; read it back with {@link #stdout()} and {@link #stderr()}
     */
    public static ToolContext captured() {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        return new ToolContext(new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), false, o, e);
    }

    /**
     * Where the report goes.
     *
     * @return stdout
     */
    public PrintStream out() {
        return out;
    }

    /**
     * Where errors and progress go.
     *
     * @return stderr
     */
    public PrintStream err() {
        return err;
    }

    /**
     * Whether a terminal is attached, so progress lines are welcome.
     *
     * @return true for an interactive terminal
     */
    public boolean terminal() {
        return terminal;
    }

    /**
     * What a captured context collected on stdout so far.
     *
     * @return the text
     * @throws IllegalStateException if this context is not {@link #captured()}
     */
    public String stdout() {
        return text(outBuffer, out);
    }

    /**
     * What a captured context collected on stderr so far.
     *
     * @return the text
     * @throws IllegalStateException if this context is not {@link #captured()}
     */
    public String stderr() {
        return text(errBuffer, err);
    }

    private static String text(ByteArrayOutputStream buffer, PrintStream stream) {
        if (buffer == null) {
            throw new IllegalStateException("not a captured context");
        }
        stream.flush();
        synchronized (buffer) {
            return buffer.toString(StandardCharsets.UTF_8);
        }
    }
}
