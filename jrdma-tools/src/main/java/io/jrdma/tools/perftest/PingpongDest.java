package io.jrdma.tools.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.jrdma.tools.perf.PeerAddress;

/**
 * perftest's per-QP address record ({@code struct pingpong_dest}), exchanged in every handshake of
 * the rdma_cm mode ({@code -R}) as one 56-byte SEND, each integer converted to network order:
 *
 * <pre>
 *  offset  field       bytes
 *   0      lid         4   big-endian
 *   4      out_reads   4   big-endian
 *   8      qpn         4   big-endian
 *  12      psn         4   big-endian
 *  16      rkey        4   big-endian
 *  20      (padding)   4   the C struct aligns vaddr to 8; perftest leaves it unset, jrdma sends 0
 *  24      vaddr       8   big-endian
 *  32      gid        16   raw
 *  48      srqn        4   big-endian
 *  52      gid_index   4   big-endian
 * </pre>
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_resources.h} ({@code struct pingpong_dest},
 * x86-64 layout) and {@code src/perftest_communication.c} ({@code rdma_write_keys},
 * {@code rdma_read_keys}: the reader takes lid, out_reads, qpn, psn, rkey, vaddr and gid).
 *
 * @param lid the port LID (0 on Ethernet)
 * @param outReads outstanding RDMA READs
 * @param qpn the QP number
 * @param psn the starting PSN (perftest's random 24 bits; informational under rdma_cm)
 * @param rkey the rkey of the buffer the peer may write or read (or of the credit buffer)
 * @param vaddr its virtual address
 * @param gid the 16-byte GID (copied)
 * @param srqn the SRQ number (XRC/DC only; 0)
 * @param gidIndex the GID index
 */
public record PingpongDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn,
        int gidIndex) {

    /** {@code sizeof(struct pingpong_dest)} on x86-64. */
    public static final int LENGTH = 56;

    /** Offset of the LID. */
    public static final int LID_OFFSET = 0;
    /** Offset of out_reads. */
    public static final int OUT_READS_OFFSET = 4;
    /** Offset of the QPN. */
    public static final int QPN_OFFSET = 8;
    /** Offset of the PSN. */
    public static final int PSN_OFFSET = 12;
    /** Offset of the rkey. */
    public static final int RKEY_OFFSET = 16;
    /** Offset of the virtual address. */
    public static final int VADDR_OFFSET = 24;
    /** Offset of the GID. */
    public static final int GID_OFFSET = 32;
    /** Offset of the SRQ number. */
    public static final int SRQN_OFFSET = 48;
    /** Offset of the GID index. */
    public static final int GID_INDEX_OFFSET = 52;

    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The all-zero record perftest sends in the handshakes around the rdma_cm connection setup. */
    public static final PingpongDest ZERO = new PingpongDest(0, 0, 0, 0, 0, 0, new byte[16], 0, 0);

    /**
     * Checks and copies the GID.
     *
     * @throws IllegalArgumentException if the GID is not 16 bytes
     */
    public PingpongDest {
        if (gid == null || gid.length != PeerAddress.GID_LENGTH) {
            throw new IllegalArgumentException("a GID has 16 bytes");
        }
        gid = gid.clone();
    }

    /**
     * The GID.
     *
     * @return a copy
     */
    @Override
    public byte[] gid() {
        return gid.clone();
    }

    /**
     * Writes the record in perftest's wire form.
     *
     * @param s the segment, at least {@link #LENGTH} bytes from {@code at}
     * @param at the offset
     */
    public void encode(MemorySegment s, long at) {
        s.set(BE32, at + LID_OFFSET, lid);
        s.set(BE32, at + OUT_READS_OFFSET, outReads);
        s.set(BE32, at + QPN_OFFSET, qpn);
        s.set(BE32, at + PSN_OFFSET, psn);
        s.set(BE32, at + RKEY_OFFSET, rkey);
        s.set(BE32, at + RKEY_OFFSET + 4, 0);
        s.set(BE64, at + VADDR_OFFSET, vaddr);
        MemorySegment.copy(gid, 0, s, ValueLayout.JAVA_BYTE, at + GID_OFFSET, gid.length);
        s.set(BE32, at + SRQN_OFFSET, srqn);
        s.set(BE32, at + GID_INDEX_OFFSET, gidIndex);
    }

    /**
     * Reads a record as {@code rdma_read_keys} does. The GID index is not read (perftest keeps its
     * own, and ignores the peer's SRQ number); the caller passes the local one.
     *
     * @param s the segment holding {@link #LENGTH} bytes at {@code at}
     * @param at the offset
     * @param localGidIndex the GID index to put in the record
     * @return the record
     */
    public static PingpongDest decode(MemorySegment s, long at, int localGidIndex) {
        byte[] g = new byte[PeerAddress.GID_LENGTH];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at + GID_OFFSET, g, 0, g.length);
        return new PingpongDest(s.get(BE32, at + LID_OFFSET), s.get(BE32, at + OUT_READS_OFFSET),
                s.get(BE32, at + QPN_OFFSET), s.get(BE32, at + PSN_OFFSET), s.get(BE32, at + RKEY_OFFSET),
                s.get(BE64, at + VADDR_OFFSET), g, 0, localGidIndex);
    }

    /**
     * The address line form of this record.
     *
     * @param withGid whether a GID line is printed
     * @return the address
     */
    public PeerAddress toPeerAddress(boolean withGid) {
        return new PeerAddress(lid, qpn, psn, rkey, vaddr, outReads, withGid ? gid : null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PingpongDest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn && psn == d.psn
                && rkey == d.rkey && vaddr == d.vaddr && Arrays.equals(gid, d.gid) && srqn == d.srqn
                && gidIndex == d.gidIndex;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(gid) * 31 + qpn * 7 + Long.hashCode(vaddr) + rkey;
    }

    @Override
    public String toString() {
        return "PingpongDest[lid=" + lid + ", out_reads=" + outReads + ", qpn=0x" + Integer.toHexString(qpn)
                + ", psn=0x" + Integer.toHexString(psn) + ", rkey=0x" + Integer.toHexString(rkey) + ", vaddr=0x"
                + Long.toHexString(vaddr) + "]";
    }
}
