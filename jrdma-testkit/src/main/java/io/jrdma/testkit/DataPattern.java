package io.jrdma.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * Deterministic test data: the byte at position {@code i} of pattern {@code seed} is a hash of both,
 * so any misplaced, shifted, truncated or stale byte shows, and checksums (CRC32C) compare large
 * transfers cheaply.
 */
public final class DataPattern {
    private DataPattern() {
    }

    /** The byte of pattern {@code seed} at position {@code i}. */
    public static byte byteAt(long seed, long i) {
        long z = seed * 0x9E37_79B9_7F4A_7C15L + i * 0xBF58_476D_1CE4_E5B9L;
        z ^= z >>> 29;
        z *= 0x94D0_49BB_1331_11EBL;
        return (byte) (z >>> 56);
    }

    /** Fills {@code len} bytes of {@code seg} at {@code off} with pattern {@code seed} from position 0. */
    public static void fill(MemorySegment seg, long off, long len, long seed) {
        for (long i = 0; i < len; i++) {
            seg.set(ValueLayout.JAVA_BYTE, off + i, byteAt(seed, i));
        }
    }

    /** The pattern's first {@code len} bytes. */
    public static byte[] bytes(long seed, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = byteAt(seed, i);
        }
        return b;
    }

    /** The index of the first byte of {@code seg[off, off+len)} differing from pattern {@code seed}, or -1. */
    public static long firstMismatch(MemorySegment seg, long off, long len, long seed) {
        for (long i = 0; i < len; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, off + i) != byteAt(seed, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code seg[off, off+len)} holds pattern {@code seed} from position 0. */
    public static boolean matches(MemorySegment seg, long off, long len, long seed) {
        return firstMismatch(seg, off, len, seed) < 0;
    }

    /** The CRC32C of {@code seg[off, off+len)}. */
    public static long crc(MemorySegment seg, long off, long len) {
        CRC32C c = new CRC32C();
        c.update(seg.asSlice(off, len).asByteBuffer());
        return c.getValue();
    }

    /** The CRC32C of the pattern's first {@code len} bytes. */
    public static long crcOf(long seed, int len) {
        CRC32C c = new CRC32C();
        c.update(bytes(seed, len));
        return c.getValue();
    }
}
