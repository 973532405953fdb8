package com.ibm.disni.util;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A pool of direct buffers in power-of-two sizes (at least 64 bytes), in native byte order. */
public class MemoryAllocation {
    private static final int MIN_BLOCK_SIZE = 64;
    private static MemoryAllocation instance;

    private final ConcurrentHashMap<Integer, ConcurrentLinkedQueue<MemBuf>> free = new ConcurrentHashMap<>();

    private MemoryAllocation() {
    }

    /**
     * The process-wide pool.
     *
     * @return the pool
     */
    public static synchronized MemoryAllocation getInstance() {
        if (instance == null) {
            instance = new MemoryAllocation();
        }
        return instance;
    }

    static int roundUp(int size) {
        if (size <= MIN_BLOCK_SIZE) {
            return MIN_BLOCK_SIZE;
        }
        int p = Integer.highestOneBit(size - 1) << 1;
        if (p <= 0) {
            throw new IllegalArgumentException("cannot allocate " + size + " bytes in a power-of-two block");
        }
        return p;
    }

    /**
     * A cleared buffer of at least {@code size} bytes, from the pool or new.
     *
     * @param size bytes wanted
     * @return the buffer
     */
    public MemBuf allocate(int size) {
        int s = roundUp(size);
        ConcurrentLinkedQueue<MemBuf> q = free.get(s);
        MemBuf b = q == null ? null : q.poll();
        if (b != null) {
            return b;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(s).order(ByteOrder.nativeOrder());
        return new MemBuf(buffer, this);
    }

    void free(MemBuf buf) {
        buf.getBuffer().clear();
        free.computeIfAbsent(buf.size(), k -> new ConcurrentLinkedQueue<>()).add(buf);
    }
}
