package io.jrdma.rxe.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A fixed set of packet buffers carved from one native segment, for the few packets that must
 * outlive a duty cycle step: requests queued behind a responder's RDMA READ reply (rxe's
 * {@code req_pkts} queue) and packets the fault injector holds back. Engine holder only; taking and
 * returning allocate nothing. When the pool is empty the caller drops the packet, which RC recovers
 * like a loss.
 */
public final class PacketPool {
    /** One pooled buffer and what it holds. */
    public static final class Buffer {
        /** The buffer's bytes. */
        public final MemorySegment segment;
        /** A byte-buffer view for socket I/O. */
        public final ByteBuffer view;
        /** Valid bytes. */
        public int length;
        /** Sender IPv4 address (received packets) or 0. */
        public int sourceIpv4;
        /** First 8 bytes of an IPv6 sender address. */
        public long sourceHigh;
        /** Last 8 bytes of an IPv6 sender address. */
        public long sourceLow;
        /** Sender UDP port (received packets). */
        public int sourcePort;
        /** The ICRC solver's match for a received packet. */
        public long ipv4Match;
        /** Where a held outgoing packet goes. */
        public Peer peer;

        Buffer(MemorySegment segment) {
            this.segment = segment;
            this.view = segment.asByteBuffer();
        }

        /**
         * Copies {@code len} bytes from {@code src} at {@code off} into this buffer.
         *
         * @param src the source segment
         * @param off the offset in it
         * @param len the number of bytes
         */
        public void copyFrom(MemorySegment src, long off, int len) {
            MemorySegment.copy(src, off, segment, 0, len);
            length = len;
        }
    }

    private final Buffer[] free;
    private int count;
    private final int bufferSize;

    /**
     * A pool of {@code buffers} buffers of {@code size} bytes each.
     *
     * @param buffers the number of buffers
     * @param size the size of each buffer
     */
    public PacketPool(int buffers, int size) {
        MemorySegment all = Arena.ofAuto().allocate((long) buffers * size, 64);
        this.free = new Buffer[buffers];
        for (int i = 0; i < buffers; i++) {
            free[i] = new Buffer(all.asSlice((long) i * size, size));
        }
        this.count = buffers;
        this.bufferSize = size;
    }

    /**
     * A free buffer, or {@code null} if none is left.
     *
     * @return a free buffer, or {@code null} if none is left
     */
    public Buffer take() {
        if (count == 0) {
            return null;
        }
        Buffer b = free[--count];
        free[count] = null;
        return b;
    }

    /**
     * Returns a buffer taken from this pool.
     *
     * @param b a buffer taken from this pool
     */
    public void give(Buffer b) {
        b.peer = null;
        b.length = 0;
        free[count++] = b;
    }

    /**
     * Free buffers.
     *
     * @return free buffers
     */
    public int available() {
        return count;
    }

    /**
     * The size of each buffer.
     *
     * @return the size of each buffer
     */
    public int bufferSize() {
        return bufferSize;
    }
}
