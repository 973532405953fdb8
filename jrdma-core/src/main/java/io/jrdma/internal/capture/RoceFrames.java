package io.jrdma.internal.capture;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * Builds RoCEv2 packets (IBTA Vol 1 ch. 9 transport headers, Annex A17 ICRC) for a capture, one at a
 * time, for a provider that has no wire of its own (loop). Layout, in network byte order:
 * <pre>
 *  BTH    12  opcode | SE M Pad(2) TVer(4) | P_Key(16) | resv8a | DestQP(24) | A resv7 | PSN(24)
 *  RETH   16  VA(64) | R_Key(32) | DMA length(32)                 WRITE First/Only, READ request
 *  AETH    4  syndrome(8) | MSN(24)                               ACK, READ response First/Last/Only
 *  AtomicETH 28  VA(64) | R_Key(32) | swap or add(64) | compare(64)
 *  AtomicAckETH 8  original(64)
 *  DETH    8  Q_Key(32) | resv8 | source QP(24)                   UD
 *  ImmDt   4, IETH 4 (R_Key to invalidate)
 *  payload, pad to 4 bytes, ICRC (CRC-32, little-endian on the wire)
 * </pre>
 * The ICRC is computed as rxe computes it ({@code rxe_icrc.c}): over eight 0xFF bytes (the masked
 * LRH), the IPv4 header with TOS, TTL and checksum masked, the UDP header with its checksum masked,
 * the BTH with resv8a masked, and everything after up to the ICRC. The IPv4 header assumed is the one
 * {@link PacketTap#roce4} writes: identification 0, DF.
 *
 * <p>One builder per engine; not thread-safe; allocation-free.
 */
public final class RoceFrames {
    /** Opcode base of RC (IBTA Table 38). */
    public static final int RC = 0x00;
    /** Opcode base of UC. */
    public static final int UC = 0x20;
    /** Opcode base of UD. */
    public static final int UD = 0x60;
    /** SEND First. */
    public static final int SEND_FIRST = 0x00;
    /** SEND Middle. */
    public static final int SEND_MIDDLE = 0x01;
    /** SEND Last. */
    public static final int SEND_LAST = 0x02;
    /** SEND Last with Immediate. */
    public static final int SEND_LAST_IMM = 0x03;
    /** SEND Only. */
    public static final int SEND_ONLY = 0x04;
    /** SEND Only with Immediate. */
    public static final int SEND_ONLY_IMM = 0x05;
    /** RDMA WRITE First. */
    public static final int WRITE_FIRST = 0x06;
    /** RDMA WRITE Middle. */
    public static final int WRITE_MIDDLE = 0x07;
    /** RDMA WRITE Last. */
    public static final int WRITE_LAST = 0x08;
    /** RDMA WRITE Last with Immediate. */
    public static final int WRITE_LAST_IMM = 0x09;
    /** RDMA WRITE Only. */
    public static final int WRITE_ONLY = 0x0A;
    /** RDMA WRITE Only with Immediate. */
    public static final int WRITE_ONLY_IMM = 0x0B;
    /** RDMA READ Request. */
    public static final int READ_REQUEST = 0x0C;
    /** RDMA READ Response First. */
    public static final int READ_RESPONSE_FIRST = 0x0D;
    /** RDMA READ Response Middle. */
    public static final int READ_RESPONSE_MIDDLE = 0x0E;
    /** RDMA READ Response Last. */
    public static final int READ_RESPONSE_LAST = 0x0F;
    /** RDMA READ Response Only. */
    public static final int READ_RESPONSE_ONLY = 0x10;
    /** Acknowledge. */
    public static final int ACKNOWLEDGE = 0x11;
    /** ATOMIC Acknowledge. */
    public static final int ATOMIC_ACKNOWLEDGE = 0x12;
    /** CmpSwap. */
    public static final int COMPARE_SWAP = 0x13;
    /** FetchAdd. */
    public static final int FETCH_ADD = 0x14;
    /** SEND Last with Invalidate. */
    public static final int SEND_LAST_INV = 0x16;
    /** SEND Only with Invalidate. */
    public static final int SEND_ONLY_INV = 0x17;
    /** The default P_Key. */
    static final int PKEY = 0xFFFF;
    /** The largest packet built: a 4096-byte payload and every header. */
    static final int MAX_PACKET = 4096 + 128;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final byte[] FF8 = {-1, -1, -1, -1, -1, -1, -1, -1};

    private final byte[] bytes = new byte[MAX_PACKET];
    private final MemorySegment buf = MemorySegment.ofArray(bytes);
    private final byte[] pseudo = new byte[28];
    private final MemorySegment pseudoSeg = MemorySegment.ofArray(pseudo);
    private final CRC32 crc = new CRC32();
    private int length;

    /** An empty builder. */
    public RoceFrames() {
    }

    /**
     * Starts a packet with its BTH.
     *
     * @param opcode the full 8-bit opcode (base + operation)
     * @param solicited the SE bit
     * @param destQpn the destination QP
     * @param ackReq the A bit
     * @param psn the PSN
     * @return this
     */
    public RoceFrames bth(int opcode, boolean solicited, int destQpn, boolean ackReq, int psn) {
        buf.set(U32, 0, (opcode & 0xff) << 24 | (solicited ? 0x80 : 0) << 16 | PKEY);
        buf.set(U32, 4, destQpn & 0xFFFFFF);
        buf.set(U32, 8, (ackReq ? 0x8000_0000 : 0) | psn & 0xFFFFFF);
        length = 12;
        return this;
    }

    /**
     * RETH.
     *
     * @param va the virtual address
     * @param rkey the R_Key
     * @param dmaLength the length of the whole message
     * @return this
     */
    public RoceFrames reth(long va, int rkey, int dmaLength) {
        buf.set(U64, length, va);
        buf.set(U32, length + 8, rkey);
        buf.set(U32, length + 12, dmaLength);
        length += 16;
        return this;
    }

    /**
     * AETH.
     *
     * @param syndrome the syndrome (ACK 0x1F: unlimited credits; RNR NAK 0x20 | timer; NAK 0x60 | code)
     * @param msn the MSN
     * @return this
     */
    public RoceFrames aeth(int syndrome, int msn) {
        buf.set(U32, length, (syndrome & 0xff) << 24 | msn & 0xFFFFFF);
        length += 4;
        return this;
    }

    /**
     * DETH.
     *
     * @param qkey the Q_Key
     * @param srcQpn the source QP
     * @return this
     */
    public RoceFrames deth(int qkey, int srcQpn) {
        buf.set(U32, length, qkey);
        buf.set(U32, length + 4, srcQpn & 0xFFFFFF);
        length += 8;
        return this;
    }

    /**
     * ImmDt or IETH: one 32-bit word.
     *
     * @param value the immediate data or the R_Key to invalidate
     * @return this
     */
    public RoceFrames word(int value) {
        buf.set(U32, length, value);
        length += 4;
        return this;
    }

    /**
     * AtomicETH.
     *
     * @param va the virtual address
     * @param rkey the R_Key
     * @param swapAdd the swap or add operand
     * @param compare the compare operand
     * @return this
     */
    public RoceFrames atomicEth(long va, int rkey, long swapAdd, long compare) {
        buf.set(U64, length, va);
        buf.set(U32, length + 8, rkey);
        buf.set(U64, length + 12, swapAdd);
        buf.set(U64, length + 20, compare);
        length += 28;
        return this;
    }

    /**
     * AtomicAckETH.
     *
     * @param original the original value
     * @return this
     */
    public RoceFrames atomicAckEth(long original) {
        buf.set(U64, length, original);
        length += 8;
        return this;
    }

    /**
     * Where {@code n} payload bytes go: copy them to {@link #segment()} at the returned offset.
     *
     * @param n the payload bytes
     * @return the offset
     */
    public int payload(int n) {
        int at = length;
        length += n;
        return at;
    }

    /**
     * The packet buffer.
     *
     * @return the segment the packet is built in
     */
    public MemorySegment segment() {
        return buf;
    }

    /**
     * Pads the payload, writes the ICRC for an IPv4 packet from {@code srcIp}:{@code srcPort} to
     * {@code dstIp}:{@code dstPort} (identification 0, DF), and hands it to {@code tap}.
     *
     * @param tap the capture
     * @param srcIp the source IPv4 address
     * @param dstIp the destination IPv4 address
     * @param srcPort the UDP source port
     * @param dstPort the UDP destination port
     */
    public void emit(PacketTap tap, int srcIp, int dstIp, int srcPort, int dstPort) {
        int pad = -(length - 12) & 3;
        // BTH PadCnt (bits 5:4 of byte 1); the payload is everything after the headers, so its pad is
        // the distance to a 4-byte boundary of the whole packet.
        bytes[1] = (byte) (bytes[1] & ~0x30 | pad << 4);
        for (int i = 0; i < pad; i++) {
            bytes[length++] = 0;
        }
        int total = length + 4;
        buf.set(LE32, length, icrc(srcIp, dstIp, srcPort, dstPort, total));
        tap.roce4(srcIp, dstIp, srcPort, dstPort, 0, 0x4000, buf, 0, total);
    }

    /** CRC-32 over the masked pseudo-header and the packet up to the ICRC ({@code rxe_icrc.c}). */
    private int icrc(int srcIp, int dstIp, int srcPort, int dstPort, int udpPayload) {
        pseudoSeg.set(U32, 0, 0x45ff_0000 | (20 + 8 + udpPayload)); // version/IHL, TOS masked, total length
        pseudoSeg.set(U32, 4, 0x0000_4000); // identification 0, DF
        pseudoSeg.set(U32, 8, 0xff11_ffff); // TTL masked, UDP, checksum masked
        pseudoSeg.set(U32, 12, srcIp);
        pseudoSeg.set(U32, 16, dstIp);
        pseudoSeg.set(U32, 20, srcPort << 16 | dstPort & 0xffff);
        pseudoSeg.set(U32, 24, (8 + udpPayload) << 16 | 0xffff); // UDP checksum masked
        crc.reset();
        crc.update(FF8);
        crc.update(pseudo);
        crc.update(bytes, 0, 4);
        crc.update(0xff); // resv8a
        crc.update(bytes, 5, length - 5);
        return (int) crc.getValue();
    }
}
