package io.jrdma.tools.perftest;

import java.io.PrintStream;
import java.util.function.Consumer;

import io.jrdma.tools.perf.RunMonitor;
import io.jrdma.tools.perf.TestInfo.Verb;

/**
 * The untimed iterations one side of a perftest run makes before each measured size ({@link PerfSpec#warmupFor}):
 * only when the peer is jrdma too, which runs them as well, and only in the tests whose other side is passive or
 * a ping-pong of WRITEs (write and read bandwidth, write and read latency); SEND tests would need the receiver's
 * posted receives to match, and atomics would leave their additions in the target: they run none. The first
 * size that warms up says so once on standard error.
 */
final class Warmup {

    private final PerfSpec spec;
    private final PerfTest test;
    private final PrintStream err;
    private final boolean peerIsJrdma;
    private final Runnable onStall;
    /** Whether the warm-up line was printed. */
    private boolean said;

    /**
     * @param spec the run's flags
     * @param err where the one notice goes
     * @param peerIsJrdma whether the peer runs the same warm-up (otherwise there is none)
     * @param onStall what a warm-up's monitor calls when the run stalls, as in a measured run
     */
    Warmup(PerfSpec spec, PrintStream err, boolean peerIsJrdma, Runnable onStall) {
        this.spec = spec;
        this.test = spec.test();
        this.err = err;
        this.peerIsJrdma = peerIsJrdma;
        this.onStall = onStall;
    }

    /**
     * @param size the message size
     * @return the warm-up iterations before the measured run of {@code size}, 0 for none
     */
    long iterations(int size) {
        return iterations(size, 1);
    }

    /**
     * @param size the message size
     * @param unit the multiple to round up to
     * @return {@link #iterations(int)} rounded up to a multiple of {@code unit}
     */
    long iterations(int size, int unit) {
        long w = peerIsJrdma ? (spec.warmupFor(size) + unit - 1) / unit * unit : 0;
        if (w > 0 && !said) {
            said = true;
            boolean byJit = spec.warmup() == PerfSpec.AUTO_WARMUP && (test.bandwidth() || test.verb() == Verb.READ);
            err.println("jrdma: the peer is jrdma: each size runs untimed warm-up iterations first (" + w + " at "
                    + size + " B" + (byJit ? ", repeated while the JIT compiles" : "") + "; --warmup 0 for none)");
        }
        return w;
    }

    /**
     * Runs {@code body} once under a warm-up monitor where {@code iterations} is positive; with the automatic
     * warm-up and {@code whileJitCompiles}, again while this JVM's JIT still compiles after a round.
     *
     * @param size the message size (for the monitor's label)
     * @param iterations the warm-up's iterations, 0 for none
     * @param target the iterations the monitor counts towards (all QPs')
     * @param whileJitCompiles whether to repeat while the JIT compiles
     * @param body one round, given its monitor
     */
    void run(int size, long iterations, long target, boolean whileJitCompiles, Consumer<RunMonitor> body) {
        JitQuiet jit = whileJitCompiles && iterations > 0 && spec.warmup() == PerfSpec.AUTO_WARMUP
                ? JitQuiet.ofThisJvm() : null;
        for (boolean again = iterations > 0; again; again = jit != null && jit.another()) {
            try (RunMonitor m = new RunMonitor(test.command() + " " + size + " B warm-up", target, err, false,
                    spec.timeout().toNanos(), onStall)) {
                body.accept(m);
            }
        }
    }
}
