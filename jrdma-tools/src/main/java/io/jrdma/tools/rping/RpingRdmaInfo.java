package io.jrdma.tools.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * rping's buffer advertisement ({@code struct rping_rdma_info}), the 16-byte message each SEND of
 * the ping-pong carries, read and written in place in a registered buffer:
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      buf (virtual address)                    |
 * +                         big-endian 64                         +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       rkey (big-endian 32)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       size (big-endian 32)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Modelled on rdma-core {@code librdmacm/examples/rping.c} ({@code rping_format_send},
 * {@code server_recv}). Like every flyweight it neither allocates nor validates.
 */
public final class RpingRdmaInfo {

    /** Offset of the buffer address. */
    public static final int BUF_OFFSET = 0;

    /** Offset of the remote key. */
    public static final int RKEY_OFFSET = 8;

    /** Offset of the buffer size. */
    public static final int SIZE_OFFSET = 12;

    /** Length of the message ({@code sizeof(struct rping_rdma_info)}). */
    public static final int LENGTH = 16;

    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    /** Creates an unbound flyweight. */
    public RpingRdmaInfo() {
    }

    /**
     * Points the flyweight at a message.
     *
     * @param s the segment
     * @param at the offset of the message in it
     * @return this flyweight
     */
    public RpingRdmaInfo wrap(MemorySegment s, long at) {
        this.segment = s;
        this.offset = at;
        return this;
    }

    /**
     * The advertised buffer address.
     *
     * @return the address
     */
    public long buf() {
        return segment.get(BE64, offset + BUF_OFFSET);
    }

    /**
     * The advertised remote key.
     *
     * @return the rkey
     */
    public int rkey() {
        return segment.get(BE32, offset + RKEY_OFFSET);
    }

    /**
     * The advertised length.
     *
     * @return the size in bytes
     */
    public int size() {
        return segment.get(BE32, offset + SIZE_OFFSET);
    }

    /**
     * Writes an advertisement.
     *
     * @param buf the buffer address
     * @param rkey its remote key
     * @param size its length
     * @return this flyweight
     */
    public RpingRdmaInfo set(long buf, int rkey, int size) {
        segment.set(BE64, offset + BUF_OFFSET, buf);
        segment.set(BE32, offset + RKEY_OFFSET, rkey);
        segment.set(BE32, offset + SIZE_OFFSET, size);
        return this;
    }
}
