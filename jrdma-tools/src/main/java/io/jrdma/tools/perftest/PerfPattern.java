package io.jrdma.tools.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * The data jrdma's perftest tools send when asked to verify ({@code --verify}, and always in
 * {@code jrdma demo}): byte {@code k} of every message is a fixed function of {@code k}, so any
 * slot a message landed in can be checked on its own by its CRC32C. (perftest itself sends
 * whatever its buffers hold and checks nothing.)
 */
public final class PerfPattern {

    private PerfPattern() {
    }

    /**
     * Byte {@code k} of a message.
     *
     * @param k the offset in the message
     * @return the byte
     */
    public static byte at(long k) {
        long x = k * 0x9E3779B97F4A7C15L + 0x5851F42D4C957F2DL;
        return (byte) ((x >>> 32) ^ (x >>> 56));
    }

    /**
     * Writes the pattern of a message of {@code length} bytes.
     *
     * @param s the segment
     * @param offset where the message starts
     * @param length its length
     */
    public static void fill(MemorySegment s, long offset, int length) {
        for (int k = 0; k < length; k++) {
            s.set(ValueLayout.JAVA_BYTE, offset + k, at(k));
        }
    }

    /**
     * The CRC32C of the pattern of a message of {@code length} bytes.
     *
     * @param length the length
     * @return the checksum
     */
    public static long crc(int length) {
        byte[] b = new byte[length];
        for (int k = 0; k < length; k++) {
            b[k] = at(k);
        }
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    /**
     * The first byte of a slot that differs from the pattern.
     *
     * @param slot the slot
     * @param length bytes to compare
     * @return the offset, or -1 if none
     */
    public static long firstMismatch(MemorySegment slot, int length) {
        for (int k = 0; k < length; k++) {
            if (slot.get(ValueLayout.JAVA_BYTE, k) != at(k)) {
                return k;
            }
        }
        return -1;
    }
}
