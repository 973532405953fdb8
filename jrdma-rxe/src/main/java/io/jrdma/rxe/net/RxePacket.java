package io.jrdma.rxe.net;

import io.jrdma.internal.roce.Aeth;
import io.jrdma.internal.roce.AtomicAckEth;
import io.jrdma.internal.roce.AtomicEth;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Ieth;
import io.jrdma.internal.roce.ImmDt;
import io.jrdma.internal.roce.Reth;
import java.lang.foreign.MemorySegment;

/**
 * A received RoCEv2 packet as the QPs see it (rxe's {@code struct rxe_pkt_info}): where it lies,
 * its opcode and the properties rxe's opcode table gives, its PSN, and flyweights over the extended
 * headers the opcode carries. One instance per engine, re-parsed for every packet; nothing is
 * allocated. The extended-header flyweights are valid only for the headers the opcode has.
 */
public final class RxePacket {
    /** The BTH. */
    public final Bth bth = new Bth();
    /** The RETH (WRITE First/Only, READ request). */
    public final Reth reth = new Reth();
    /** The AETH (ACK, READ response First/Last/Only, atomic ACK). */
    public final Aeth aeth = new Aeth();
    /** The AtomicETH (CmpSwap, FetchAdd). */
    public final AtomicEth atomicEth = new AtomicEth();
    /** The AtomicAckETH. */
    public final AtomicAckEth atomicAckEth = new AtomicAckEth();
    /** The DETH (UD). */
    public final Deth deth = new Deth();
    /** The ImmDt. */
    public final ImmDt immDt = new ImmDt();
    /** The IETH. */
    public final Ieth ieth = new Ieth();

    private MemorySegment segment;
    private long offset;
    private int length;
    private IbOpcode opcode;
    private int flags;
    private int psn;
    private int payloadLength;
    private int sourceIpv4;
    private long sourceHigh;
    private long sourceLow;
    private int sourcePort;
    private long ipv4Match;

    /** An empty packet; {@link #parse} fills it. */
    public RxePacket() {
    }

    /**
     * Parses the UDP payload at {@code offset} ({@code length} bytes, ICRC included): opcode, BTH
     * fields and extended headers. Returns false, leaving the packet unusable, if the opcode is not
     * one rxe knows or the length does not hold its headers, pad and ICRC.
     *
     * @param seg the buffer
     * @param off the offset in it
     * @param len the number of bytes
     * @return parses the UDP payload at {@code offset} ({@code length} bytes, ICRC included): opcode, BTH
     */
    public boolean parse(MemorySegment seg, long off, int len) {
        if (len < Bth.LENGTH + Icrc.LENGTH) {
            return false;
        }
        IbOpcode op = IbOpcode.fromCode(Bth.opcode(seg, off));
        if (op == null) {
            return false;
        }
        bth.wrap(seg, off);
        int pay = len - op.headerLength() - bth.padCount() - Icrc.LENGTH;
        if (pay < 0 || (!op.hasPayload() && pay != 0)) {
            return false;
        }
        this.segment = seg;
        this.offset = off;
        this.length = len;
        this.opcode = op;
        this.flags = op.flags();
        this.psn = bth.psn();
        this.payloadLength = pay;
        if (op.rethOffset() >= 0) {
            reth.wrap(seg, off + op.rethOffset());
        }
        if (op.aethOffset() >= 0) {
            aeth.wrap(seg, off + op.aethOffset());
        }
        if (op.atomicEthOffset() >= 0) {
            atomicEth.wrap(seg, off + op.atomicEthOffset());
        }
        if (op.atomicAckEthOffset() >= 0) {
            atomicAckEth.wrap(seg, off + op.atomicAckEthOffset());
        }
        if (op.dethOffset() >= 0) {
            deth.wrap(seg, off + op.dethOffset());
        }
        if (op.immDtOffset() >= 0) {
            immDt.wrap(seg, off + op.immDtOffset());
        }
        if (op.iethOffset() >= 0) {
            ieth.wrap(seg, off + op.iethOffset());
        }
        return true;
    }

    /**
     * Records where the packet came from (for a UD receive's GRH) and the solved IPv4 id match.
     *
     * @param ipv4 the IPv4 source address, or 0 for IPv6
     * @param high first 8 bytes of an IPv6 source address
     * @param low last 8 bytes of an IPv6 source address
     * @param port the UDP source port
     * @param icrcMatch the {@link Icrc#solveIpv4Id} result, or {@link Icrc#NO_MATCH}
     */
    public void source(int ipv4, long high, long low, int port, long icrcMatch) {
        this.sourceIpv4 = ipv4;
        this.sourceHigh = high;
        this.sourceLow = low;
        this.sourcePort = port;
        this.ipv4Match = icrcMatch;
    }

    /**
     * First 8 bytes of the sender's IPv6 address.
     *
     * @return first 8 bytes of the sender's IPv6 address
     */
    public long sourceHigh() {
        return sourceHigh;
    }

    /**
     * Last 8 bytes of the sender's IPv6 address.
     *
     * @return last 8 bytes of the sender's IPv6 address
     */
    public long sourceLow() {
        return sourceLow;
    }

    /**
     * The buffer.
     *
     * @return the buffer
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * Offset of the BTH in {@link #segment()}.
     *
     * @return offset of the BTH in {@link #segment()}
     */
    public long offset() {
        return offset;
    }

    /**
     * UDP payload length, BTH to ICRC.
     *
     * @return uDP payload length, BTH to ICRC
     */
    public int length() {
        return length;
    }

    /**
     * The opcode.
     *
     * @return the opcode
     */
    public IbOpcode opcode() {
        return opcode;
    }

    /**
     * Whether all {@link IbOpcode.Flags} bits of {@code mask} are set.
     *
     * @param mask IbOpcode.Flags bits
     * @return true if all {@link IbOpcode.Flags} bits of {@code mask} are set
     */
    public boolean has(int mask) {
        return (flags & mask) == mask;
    }

    /**
     * Whether any {@link IbOpcode.Flags} bit of {@code mask} is set.
     *
     * @param mask IbOpcode.Flags bits
     * @return true if any {@link IbOpcode.Flags} bit of {@code mask} is set
     */
    public boolean hasAny(int mask) {
        return (flags & mask) != 0;
    }

    /**
     * The PSN.
     *
     * @return the PSN
     */
    public int psn() {
        return psn;
    }

    /**
     * The destination QPN.
     *
     * @return the destination QPN
     */
    public int destQpn() {
        return bth.destQpn();
    }

    /**
     * AckReq.
     *
     * @return ackReq
     */
    public boolean ackReq() {
        return bth.ackReq();
    }

    /**
     * Solicited event.
     *
     * @return solicited event
     */
    public boolean solicited() {
        return bth.solicitedEvent();
    }

    /**
     * The pad count.
     *
     * @return the pad count
     */
    public int pad() {
        return bth.padCount();
    }

    /**
     * Offset of the payload in {@link #segment()}.
     *
     * @return offset of the payload in {@link #segment()}
     */
    public long payloadOffset() {
        return offset + opcode.payloadOffset();
    }

    /**
     * Payload bytes (without pad).
     *
     * @return payload bytes (without pad)
     */
    public int payloadLength() {
        return payloadLength;
    }

    /**
     * The sender's IPv4 address (network order), or 0 over IPv6.
     *
     * @return the sender's IPv4 address (network order), or 0 over IPv6
     */
    public int sourceIpv4() {
        return sourceIpv4;
    }

    /**
     * The sender's UDP port.
     *
     * @return the sender's UDP port
     */
    public int sourcePort() {
        return sourcePort;
    }

    /**
     * The {@link Icrc#solveIpv4Id} result, or {@link Icrc#NO_MATCH} when not checked.
     *
     * @return the {@link Icrc#solveIpv4Id} result, or {@link Icrc#NO_MATCH} when not checked
     */
    public long ipv4Match() {
        return ipv4Match;
    }
}
