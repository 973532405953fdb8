package io.jrdma.spi.ibcm;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable string of bytes with value equality, for the byte-array fields of the CM records
 * (private data, additional reject information, SIDR additional information). Records compare their
 * components with {@code equals}, which arrays do not implement by content.
 */
public final class Octets {
    private static final Octets EMPTY = new Octets(new byte[0]);

    private final byte[] bytes;

    private Octets(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * The bytes given, copied.
     *
     * @param bytes the content; not null
     * @return an instance holding a copy of {@code bytes}
     */
    public static Octets of(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("bytes must not be null");
        }
        return bytes.length == 0 ? EMPTY : new Octets(bytes.clone());
    }

    /**
     * A range of {@code bytes}, copied.
     *
     * @param bytes the source array
     * @param from first index, inclusive
     * @param to last index, exclusive
     * @return an instance holding a copy of the range
     */
    public static Octets of(byte[] bytes, int from, int to) {
        return of(Arrays.copyOfRange(bytes, from, to));
    }

    /**
     * The empty string of bytes.
     *
     * @return the shared empty instance
     */
    public static Octets empty() {
        return EMPTY;
    }

    /**
     * Number of bytes.
     *
     * @return the length
     */
    public int length() {
        return bytes.length;
    }

    /**
     * One byte.
     *
     * @param index 0-based index
     * @return the byte at {@code index}
     */
    public byte get(int index) {
        return bytes[index];
    }

    /**
     * A copy of the content.
     *
     * @return a new array
     */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /**
     * Copies the content into {@code dst} at {@code offset}.
     *
     * @param dst the destination array
     * @param offset first index written
     */
    public void copyTo(byte[] dst, int offset) {
        System.arraycopy(bytes, 0, dst, offset, bytes.length);
    }

    /**
     * This content, cut to {@code length} bytes or padded with zero bytes to it.
     *
     * @param length the wanted length
     * @return an instance of exactly {@code length} bytes
     */
    public Octets resize(int length) {
        return length == bytes.length ? this : of(Arrays.copyOf(bytes, length));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Octets other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Lower-case hex, trailing zero bytes summarised, e.g. {@code 0040958f…(+56 zero bytes)}. */
    @Override
    public String toString() {
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
            end--;
        }
        String hex = HexFormat.of().formatHex(bytes, 0, end);
        return end == bytes.length ? hex : hex + "(+" + (bytes.length - end) + " zero bytes)";
    }
}
