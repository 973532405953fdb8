package io.jrdma.internal.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Direct memory that engines keep for their whole life (staging buffers, pools of transmit batches),
 * shared by every connection the engine serves and never given back while the engine runs. Counted
 * here so that leak checks (the testkit's hygiene guard) can tell it from memory a connection failed
 * to free. Control path only: engines count a buffer once, when they first allocate it.
 */
public final class EngineMemory {
    private static final AtomicLong LONG_LIVED = new AtomicLong();

    private EngineMemory() {
    }

    /**
     * Counts {@code bytes} of direct memory an engine keeps for its life.
     *
     * @param bytes the size of the buffer just allocated
     */
    public static void kept(long bytes) {
        LONG_LIVED.addAndGet(bytes);
    }

    /**
     * Direct memory engines keep for their life, in bytes.
     *
     * @return the total counted so far
     */
    public static long longLivedDirectBytes() {
        return LONG_LIVED.get();
    }
}
