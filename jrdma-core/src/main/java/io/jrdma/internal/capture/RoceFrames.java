package io.jrdma.internal.capture;

import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.AtomicAckEth;
import io.jrdma.internal.roce.AtomicEth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.ImmDt;
import io.jrdma.internal.roce.Ipv4UdpHeader;
import io.jrdma.internal.roce.Reth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Builds RoCEv2 packets for a capture, one at a time, for a provider that has no wire of its own
 * (loop): the transport headers through the flyweights rxe sends with ({@code io.jrdma.internal.roce}),
 * the payload, the pad, and the ICRC sealed as rxe seals it ({@link Icrc#sealIpv4ForSend}: IPv4
 * identification 0, DF, the header {@link PacketTap#roce4} writes). Headers go in the order a packet
 * carries them: {@link #bth} first, then DETH, RETH, AETH, AtomicAckETH, AtomicETH, ImmDt or IETH.
 *
 * <p>One builder per engine; not thread-safe; allocation-free.
 */
public final class RoceFrames {
    /** The largest packet built: a 4096-byte payload and every header. */
    static final int MAX_PACKET = 4096 + 128;

    private final MemorySegment buf = MemorySegment.ofArray(new byte[MAX_PACKET]);
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final Deth deth = new Deth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final AtomicAckEth atomicAckEth = new AtomicAckEth();
    private final ImmDt word = new ImmDt();
    private final Icrc icrc = new Icrc();
    private int length;

    /** An empty builder. */
    public RoceFrames() {
    }

    /**
     * Starts a packet with its BTH (the default P_Key, no pad yet).
     *
     * @param opcode the BTH opcode ({@code IbOpcode.code()})
     * @param solicited the SE bit
     * @param destQpn the destination QP
     * @param ackReq the A bit
     * @param psn the PSN
     * @return this
     */
    public RoceFrames bth(int opcode, boolean solicited, int destQpn, boolean ackReq, int psn) {
        bth.wrap(buf, 0).init(opcode, solicited, false, 0, Bth.DEFAULT_PKEY, destQpn, ackReq, psn & Bth.MASK_PSN);
        length = Bth.LENGTH;
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
        reth.wrap(buf, length).va(va).rkey(rkey).dmaLength(dmaLength);
        length += Reth.LENGTH;
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
        aeth.wrap(buf, length).set(syndrome, msn);
        length += Aeth.LENGTH;
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
        deth.wrap(buf, length).qkey(qkey).srcQpn(srcQpn);
        length += Deth.LENGTH;
        return this;
    }

    /**
     * ImmDt or IETH: one 32-bit word.
     *
     * @param value the immediate data or the R_Key to invalidate
     * @return this
     */
    public RoceFrames word(int value) {
        word.wrap(buf, length).immediate(value);
        length += ImmDt.LENGTH;
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
        atomicEth.wrap(buf, length).va(va).rkey(rkey).swapAdd(swapAdd).compare(compare);
        length += AtomicEth.LENGTH;
        return this;
    }

    /**
     * AtomicAckETH.
     *
     * @param original the original value
     * @return this
     */
    public RoceFrames atomicAckEth(long original) {
        atomicAckEth.wrap(buf, length).originalData(original);
        length += AtomicAckEth.LENGTH;
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
     * Pads the payload to 4 bytes (BTH PadCnt), seals the ICRC for an IPv4 packet from
     * {@code srcIp}:{@code srcPort} to {@code dstIp}:{@code dstPort} (identification 0, DF), and hands
     * the packet to {@code tap}.
     *
     * @param tap the capture
     * @param srcIp the source IPv4 address
     * @param dstIp the destination IPv4 address
     * @param srcPort the UDP source port
     * @param dstPort the UDP destination port
     */
    public void emit(PacketTap tap, int srcIp, int dstIp, int srcPort, int dstPort) {
        // The headers are whole words, so the pad that ends the payload on a word is the whole packet's.
        int pad = -length & 3;
        bth.padCount(pad);
        for (int i = 0; i < pad; i++) {
            buf.set(ValueLayout.JAVA_BYTE, length + i, (byte) 0);
        }
        int total = length + pad + Icrc.LENGTH;
        icrc.sealIpv4ForSend(buf, 0, total, srcIp, dstIp, srcPort, dstPort);
        tap.roce4(srcIp, dstIp, srcPort, dstPort, 0, Ipv4UdpHeader.FLAG_DF, buf, 0, total);
    }
}
