package com.ibm.disni.util;

/** Accumulates elapsed wall-clock milliseconds between {@link #start()} and {@link #stop()}. */
public class StopWatch {
    private long startTime;
    private long executionTime;

    /** A reset watch. */
    public StopWatch() {
        reset();
    }

    /** Starts (or restarts) the current interval. */
    public void start() {
        startTime = System.currentTimeMillis();
    }

    /** Ends the current interval, adding it to the total. */
    public void stop() {
        if (startTime > 0) {
            executionTime += System.currentTimeMillis() - startTime;
            startTime = 0;
        }
    }

    /** Clears the total. */
    public void reset() {
        startTime = 0;
        executionTime = 0;
    }

    /**
     * Ends the current interval and returns the total.
     *
     * @return milliseconds
     */
    public long getExecutionTime() {
        stop();
        return executionTime;
    }
}
