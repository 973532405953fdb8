package io.jrdma.tools.perftest;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * When an automatic warm-up that only this side drives (bandwidth, READ latency) may stop: once the JIT
 * has gone quiet. The byte rule of {@link PerfSpec#warmupFor} is one round; rounds repeat while the JVM's
 * compilers keep working on them, until {@link #QUIET_NANOS} pass with no compilation time added, or
 * {@link #MAX_NANOS} in all. A round count alone cannot say when the data path is compiled: a 1 MiB
 * message runs siw's per-segment code a few dozen times, a 1 KiB one rxe's per-packet code once, and
 * the optimizing compiler finished siw's transmit path well after 64 rounds of 1 MiB (measured with
 * {@code -XX:+PrintCompilation}: its last recompilations came a second into a 5,000-message run).
 *
 * <p>A ping-pong warm-up (WRITE latency) keeps the count rule: both sides must run the same iterations.
 */
final class JitQuiet {

    /** A window this long without compilation work ends the warm-up. */
    static final long QUIET_NANOS = 50_000_000L;

    /** The longest warm-up. */
    static final long MAX_NANOS = 2_000_000_000L;

    private final LongSupplier compileMillis;
    private final LongSupplier clock;
    private final long start;
    private long windowStart;
    private long windowCompile;

    /**
     * Watches from now.
     *
     * @param compileMillis the JVM's total compilation time so far (ms)
     * @param clock nanoseconds
     */
    JitQuiet(LongSupplier compileMillis, LongSupplier clock) {
        this.compileMillis = compileMillis;
        this.clock = clock;
        this.start = clock.getAsLong();
        this.windowStart = start;
        this.windowCompile = compileMillis.getAsLong();
    }

    /**
     * A watch of this JVM's compilers, or null when the JVM does not report compilation time (then one
     * round is the warm-up).
     *
     * @return the watch, or null
     */
    static JitQuiet ofThisJvm() {
        CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        if (c == null || !c.isCompilationTimeMonitoringSupported()) {
            return null;
        }
        return new JitQuiet(c::getTotalCompilationTime, System::nanoTime);
    }

    /**
     * Called after each round: whether to run another.
     *
     * @return true while the compilers worked in the current window and the warm-up is within its bound
     */
    boolean another() {
        long now = clock.getAsLong();
        if (now - start >= MAX_NANOS) {
            return false;
        }
        long compiled = compileMillis.getAsLong();
        if (compiled != windowCompile) {
            windowCompile = compiled; // still compiling: a new window starts
            windowStart = now;
            return true;
        }
        return now - windowStart < QUIET_NANOS;
    }
}
