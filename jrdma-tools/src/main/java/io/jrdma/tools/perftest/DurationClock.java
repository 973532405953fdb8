package io.jrdma.tools.perftest;

/**
 * The phases of a run with a duration ({@code -D}), as perftest's {@code catch_alarm} moves them
 * with SIGALRM: warm-up for the margin, sample, cool-down for the margin, end. jrdma reads the
 * clock instead of taking signals: {@link #advance(long)} is called with {@link System#nanoTime()}
 * from the measuring loop and costs a comparison.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.c}, {@code catch_alarm}.
 */
final class DurationClock {

    /** Before the sample window. */
    static final int START = 0;
    /** Inside the sample window. */
    static final int SAMPLE = 1;
    /** After the sample window, before the end. */
    static final int STOP_SAMPLE = 2;
    /** The run is over. */
    static final int END = 3;

    private final long sampleAt;
    private final long stopAt;
    private final long endAt;
    private int state;
    private long sampleStart;
    private long sampleEnd;

    /**
     * Starts the clock.
     *
     * @param now the start, nanoseconds
     * @param durationSeconds the whole run
     * @param marginSeconds warm-up and cool-down
     */
    DurationClock(long now, int durationSeconds, int marginSeconds) {
        long margin = marginSeconds * 1_000_000_000L;
        long duration = durationSeconds * 1_000_000_000L;
        sampleAt = now + margin;
        stopAt = now + duration - margin;
        endAt = now + duration;
        state = START;
        advance(now);
    }

    /**
     * Moves to the phase of {@code now}.
     *
     * @param now nanoseconds
     * @return the phase
     */
    int advance(long now) {
        if (state == START && now - sampleAt >= 0) {
            state = SAMPLE;
            sampleStart = now;
        }
        if (state == SAMPLE && now - stopAt >= 0) {
            state = STOP_SAMPLE;
            sampleEnd = now;
        }
        if (state == STOP_SAMPLE && now - endAt >= 0) {
            state = END;
        }
        return state;
    }

    /**
     * The phase.
     *
     * @return {@link #START} .. {@link #END}
     */
    int state() {
        return state;
    }

    /**
     * The length of the sample window.
     *
     * @return nanoseconds
     */
    long sampleNanos() {
        return sampleEnd - sampleStart;
    }
}
