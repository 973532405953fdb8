package com.ibm.disni.util;

import java.nio.ByteBuffer;

/** A direct buffer of {@link MemoryAllocation}'s pool, with its native address. */
public class MemBuf {
    private final long address;
    private final ByteBuffer buffer;
    private final MemoryAllocation memAlloc;

    MemBuf(ByteBuffer buffer, MemoryAllocation memAlloc) {
        this.buffer = buffer;
        this.address = MemoryUtils.getAddress(buffer);
        this.memAlloc = memAlloc;
    }

    /**
     * The native address of the first byte.
     *
     * @return the address
     */
    public final long address() {
        return address;
    }

    /**
     * The buffer (native byte order).
     *
     * @return the buffer
     */
    public final ByteBuffer getBuffer() {
        return buffer;
    }

    /**
     * The capacity in bytes (a power of two, at least 64).
     *
     * @return the size
     */
    public final int size() {
        return buffer.capacity();
    }

    /** Gives the buffer back to the pool; it must not be used afterwards. */
    public void free() {
        if (memAlloc != null) {
            memAlloc.free(this);
        }
    }
}
