package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Unaligned big-endian (network order) access to a {@link MemorySegment}, the one byte order of the
 * IBTA headers. Values are returned unsigned where they fit an int (8, 16 and 24 bits).
 */
public final class BigEndian {
    /** Unaligned big-endian 16-bit layout. */
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian 32-bit layout. */
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian 64-bit layout. */
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private BigEndian() {
    }

    /**
     * Reads an unsigned byte.
     *
     * @param s segment
     * @param off byte offset
     * @return 0..255
     */
    public static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xff;
    }

    /**
     * Reads an unsigned 16-bit value.
     *
     * @param s segment
     * @param off byte offset
     * @return 0..65535
     */
    public static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xffff;
    }

    /**
     * Reads an unsigned 24-bit value (three bytes, most significant first).
     *
     * @param s segment
     * @param off byte offset of the most significant byte
     * @return 0..0xFFFFFF
     */
    public static int u24(MemorySegment s, long off) {
        return u8(s, off) << 16 | u16(s, off + 1);
    }

    /**
     * Reads a 32-bit value.
     *
     * @param s segment
     * @param off byte offset
     * @return the value (use {@link Integer#toUnsignedLong} for the unsigned reading)
     */
    public static int u32(MemorySegment s, long off) {
        return s.get(U32, off);
    }

    /**
     * Reads a 64-bit value.
     *
     * @param s segment
     * @param off byte offset
     * @return the value
     */
    public static long u64(MemorySegment s, long off) {
        return s.get(U64, off);
    }

    /**
     * Writes the low 8 bits of {@code v}.
     *
     * @param s segment
     * @param off byte offset
     * @param v value
     */
    public static void putU8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    /**
     * Writes the low 16 bits of {@code v}.
     *
     * @param s segment
     * @param off byte offset
     * @param v value
     */
    public static void putU16(MemorySegment s, long off, int v) {
        s.set(U16, off, (short) v);
    }

    /**
     * Writes the low 24 bits of {@code v}, most significant byte first.
     *
     * @param s segment
     * @param off byte offset
     * @param v value
     */
    public static void putU24(MemorySegment s, long off, int v) {
        putU8(s, off, v >>> 16);
        putU16(s, off + 1, v);
    }

    /**
     * Writes a 32-bit value.
     *
     * @param s segment
     * @param off byte offset
     * @param v value
     */
    public static void putU32(MemorySegment s, long off, int v) {
        s.set(U32, off, v);
    }

    /**
     * Writes a 64-bit value.
     *
     * @param s segment
     * @param off byte offset
     * @param v value
     */
    public static void putU64(MemorySegment s, long off, long v) {
        s.set(U64, off, v);
    }
}
