package com.ibm.disni.util;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** The native address of a direct buffer, without JDK internals. */
public class MemoryUtils {
    /** Not needed: the method is static. */
    public MemoryUtils() {
    }

    /**
     * The native address of the first byte of {@code buffer} (its base, whatever its position).
     *
     * @param buffer a direct buffer
     * @return the address
     * @throws IllegalArgumentException if the buffer is not direct (it has no native address)
     */
    public static long getAddress(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("a heap buffer has no native address");
        }
        return MemorySegment.ofBuffer(buffer.duplicate().clear()).address();
    }
}
