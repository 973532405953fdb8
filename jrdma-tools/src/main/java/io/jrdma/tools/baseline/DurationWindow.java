package io.jrdma.tools.baseline;

import java.util.concurrent.TimeUnit;

/**
 * The clock of a timed run ({@code -D}), following perftest's alarm states: a warm-up margin
 * (START), the sample window (SAMPLE) in which completions are counted, a cool-down margin
 * (STOP_SAMPLE), then END. perftest moves between the states on {@code SIGALRM}; the baselines
 * check the clock after each completion, which comes every few microseconds.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_resources.c}, {@code catch_alarm} and the
 * duration branches of {@code run_iter_bw} / {@code run_iter_lat_write}.
 */
final class DurationWindow {

    private static final int START = 0;
    private static final int SAMPLE = 1;
    private static final int STOP_SAMPLE = 2;

    private final long sampleAt;
    private final long stopAt;
    private final long endAt;
    private int state;
    private long sampleStart;
    private long sampleEnd;
    private long counted;

    /**
     * Starts the clock.
     *
     * @param now the start time, nanoseconds
     * @param durationSeconds the whole run
     * @param marginSeconds each margin
     */
    DurationWindow(long now, int durationSeconds, int marginSeconds) {
        long margin = TimeUnit.SECONDS.toNanos(marginSeconds);
        sampleAt = now + margin;
        stopAt = now + TimeUnit.SECONDS.toNanos(durationSeconds) - margin;
        endAt = now + TimeUnit.SECONDS.toNanos(durationSeconds);
        if (margin == 0) {
            state = SAMPLE;
            sampleStart = now;
        }
    }

    /**
     * Accounts for one completion.
     *
     * @param now the completion time
     * @return false once the run has reached its end
     */
    boolean completed(long now) {
        switch (state) {
            case START -> {
                if (now - sampleAt >= 0) {
                    state = SAMPLE;
                    sampleStart = now;
                }
                return true;
            }
            case SAMPLE -> {
                if (now - stopAt >= 0) {
                    state = STOP_SAMPLE;
                    sampleEnd = now;
                } else {
                    counted++;
                }
                return now - endAt < 0;
            }
            default -> {
                return now - endAt < 0;
            }
        }
    }

    /**
     * Whether the next completion falls in the sample window.
     *
     * @return true while sampling
     */
    boolean sampling() {
        return state == SAMPLE;
    }

    /**
     * Completions counted in the sample window.
     *
     * @return the count
     */
    long counted() {
        return counted;
    }

    /**
     * The length of the sample window; valid once the run ended.
     *
     * @return nanoseconds
     */
    long sampleNanos() {
        return sampleEnd - sampleStart;
    }
}
