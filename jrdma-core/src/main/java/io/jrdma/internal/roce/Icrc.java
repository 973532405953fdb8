package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC exactly as Linux rxe computes it ({@code rxe_icrc.c rxe_icrc_hdr},
 * {@code rxe_icrc_generate}, {@code rxe_icrc_check}; IBTA Vol 1 Annex A17.3.3): CRC-32 (IEEE 802.3,
 * {@link CRC32}) over
 * <ol>
 *   <li>8 bytes of 0xFF, the masked LRH that RoCE does not have (rxe starts from the seed
 *       0xDEBB20E3, which is the CRC state after those 8 bytes);</li>
 *   <li>the IP header with the variant fields masked to ones: IPv4 TOS, TTL and header checksum;
 *       IPv6 traffic class, flow label and hop limit;</li>
 *   <li>the UDP header with its checksum masked to 0xFFFF;</li>
 *   <li>the BTH with byte 4 (resv8a: FECN, BECN) masked to 0xFF;</li>
 *   <li>the rest of the packet up to the ICRC: extended headers, payload and pad.</li>
 * </ol>
 * The result is stored little-endian in the last 4 bytes of the UDP payload (rxe writes the
 * {@code u32} in host order on x86). Every IPv4 field not masked is covered, including the
 * identification and the DF flag: verified against 44 frames of Linux 6.1 rxe
 * ({@code src/test/resources/golden}).
 *
 * <p><b>Sending from a UDP socket.</b> The kernel writes the IPv4 header; with an unconnected socket
 * and DF forced ({@code IP_DONTFRAGMENT}) Linux writes identification 0 (interop README, "The DF /
 * IPv4-id-0 rule"), so {@link #sealIpv4ForSend} computes for id 0 and flags 0x4000.
 *
 * <p><b>Receiving on a UDP socket.</b> The socket does not show the IPv4 identification (rxe uses the
 * kernel's per-destination counter). The CRC is affine in those 16 bits: with the ICRC computed for
 * id 0, the difference to the stored ICRC is {@code D(x) * x^(32 + 8n) mod P}, where {@code D} is the
 * id as a 16-bit polynomial and {@code n} the number of bytes after the id field. Multiplying by the
 * precomputed inverse {@code x^-(32 + 8n)} gives {@code D} back, and the difference belongs to some
 * id exactly when the result has degree below 16. {@link #solveIpv4Id} therefore costs one CRC pass
 * plus one 32-step carry-less multiplication (two more when the packet length changes), and reports
 * the id it found; a corrupted packet still matches some id with probability 2^-16 per DF setting.
 *
 * <p>An instance keeps a {@link CRC32} and scratch space: one per engine, used by one thread at a time.
 * Steady-state use allocates nothing as long as the payload comes in the same {@link MemorySegment}
 * (the engine's receive or send buffer, up to 2 GiB): its {@link ByteBuffer} view, which
 * {@link CRC32#update(ByteBuffer)} needs, is made once and reused. A different segment per call, or one
 * above 2 GiB, costs a view object per call.
 */
public final class Icrc {
    /** Size of the ICRC trailer. */
    public static final int LENGTH = 4;
    /** {@link #solveIpv4Id} result when no identification makes the ICRC match. */
    public static final long NO_MATCH = -1L;
    /** {@link #solveIpv4Id} result bit: the match has DF set (flags 0x4000); clear means flags 0. */
    public static final long MATCH_DF = 1L << 16;
    /** Smallest UDP payload that can carry an ICRC: BTH plus ICRC. */
    public static final int MIN_PAYLOAD = Bth.LENGTH + LENGTH;
    /** Largest UDP payload over IPv4. */
    public static final int MAX_PAYLOAD = 0xffff - Ipv4UdpHeader.LENGTH;

    /** CRC-32 (IEEE) polynomial, reflected. */
    private static final int POLY = 0xedb88320;
    /** x^0 in the reflected representation (bit 31 is the coefficient of x^0). */
    private static final int ONE = 0x8000_0000;
    private static final int MASKED_LRH = 8;
    private static final int IPV6_LENGTH = 40;
    private static final int V4_IP_AT = MASKED_LRH;
    private static final int V4_BTH_AT = MASKED_LRH + Ipv4UdpHeader.LENGTH;
    private static final int V4_PSEUDO = V4_BTH_AT + Bth.LENGTH;
    private static final int V6_UDP_AT = MASKED_LRH + IPV6_LENGTH;
    private static final int V6_BTH_AT = V6_UDP_AT + Ipv4UdpHeader.UDP_LENGTH;
    private static final int V6_PSEUDO = V6_BTH_AT + Bth.LENGTH;
    /** Bytes of the IPv4 + UDP header after the identification field: 14 + 8. */
    private static final int AFTER_ID = Ipv4UdpHeader.LENGTH - Ipv4UdpHeader.ID_OFFSET - 2;
    private static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** x^-(32 + 8j), j = 0..255. */
    private static final int[] INV_LO = new int[256];
    /** x^-(2048 k), k = 0..256. */
    private static final int[] INV_HI = new int[257];
    /** What flipping DF (flags 0x4000 vs 0) adds to the solved polynomial: [0x40, 0x00] * x^-16. */
    private static final int K_DF;

    static {
        int x = ONE;
        for (int i = 0; i < 32; i++) {
            x = divx(x);
        }
        for (int j = 0; j < INV_LO.length; j++) {
            INV_LO[j] = x;
            for (int i = 0; i < 8; i++) {
                x = divx(x);
            }
        }
        int step = ONE;
        for (int i = 0; i < 2048; i++) {
            step = divx(step);
        }
        INV_HI[0] = ONE;
        for (int k = 1; k < INV_HI.length; k++) {
            INV_HI[k] = gfmul(INV_HI[k - 1], step);
        }
        int xInv16 = ONE;
        for (int i = 0; i < 16; i++) {
            xInv16 = divx(xInv16);
        }
        K_DF = gfmul(idPolynomial(Ipv4UdpHeader.FLAG_DF), xInv16);
    }

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[V6_PSEUDO];
    private final MemorySegment scratchSegment = MemorySegment.ofArray(scratch);
    private final Ipv4UdpHeader pseudo = new Ipv4UdpHeader();
    private MemorySegment viewOf;
    private ByteBuffer view;
    private int factorN = -1;
    private int factor;

    /** A calculator with its own CRC state and scratch space. */
    public Icrc() {
        for (int i = 0; i < MASKED_LRH; i++) {
            scratch[i] = (byte) 0xff;
        }
        pseudo.wrap(scratchSegment, V4_IP_AT);
    }

    /**
     * The ICRC of a RoCEv2 packet carried over IPv4, from the fields a UDP socket knows plus the
     * IPv4 identification and flags.
     *
     * @param payload buffer holding the UDP payload (BTH .. ICRC)
     * @param offset offset of the BTH in it
     * @param length UDP payload length including the 4 ICRC bytes, {@link #MIN_PAYLOAD} or more
     * @param source IPv4 source address (network-order int)
     * @param destination IPv4 destination address
     * @param sourcePort UDP source port
     * @param destinationPort UDP destination port (4791)
     * @param id IPv4 identification
     * @param flagsFragment IPv4 flags and fragment offset (0x4000: DF)
     * @return the ICRC as a CRC-32 value; on the wire it is stored little-endian
     */
    public int ipv4(MemorySegment payload, long offset, int length, int source, int destination, int sourcePort,
            int destinationPort, int id, int flagsFragment) {
        pseudo.write(source, destination, sourcePort, destinationPort, length, id, flagsFragment, 0xff, 0xff)
                .headerChecksum(0xffff).udpChecksum(0xffff);
        MemorySegment.copy(payload, offset, scratchSegment, V4_BTH_AT, Bth.LENGTH);
        scratch[V4_BTH_AT + Bth.RESV8A_OFFSET] = (byte) 0xff;
        crc.reset();
        crc.update(scratch, 0, V4_PSEUDO);
        update(payload, offset + Bth.LENGTH, length - Bth.LENGTH - LENGTH);
        return (int) crc.getValue();
    }

    /**
     * The ICRC for a packet sent from an unconnected UDP socket with DF forced: IPv4 id 0, flags
     * 0x4000 (the DF / IPv4-id-0 rule).
     *
     * @param payload buffer holding the UDP payload (BTH .. ICRC)
     * @param offset offset of the BTH
     * @param length UDP payload length including the ICRC
     * @param source IPv4 source address
     * @param destination IPv4 destination address
     * @param sourcePort UDP source port (the socket's bound port)
     * @param destinationPort UDP destination port (4791)
     * @return the ICRC value
     */
    public int ipv4ForSend(MemorySegment payload, long offset, int length, int source, int destination,
            int sourcePort, int destinationPort) {
        return ipv4(payload, offset, length, source, destination, sourcePort, destinationPort, 0,
                Ipv4UdpHeader.FLAG_DF);
    }

    /**
     * Computes {@link #ipv4ForSend} and stores it little-endian in the last 4 bytes of the payload.
     *
     * @param payload buffer holding the UDP payload; its last 4 bytes are overwritten
     * @param offset offset of the BTH
     * @param length UDP payload length including the ICRC
     * @param source IPv4 source address
     * @param destination IPv4 destination address
     * @param sourcePort UDP source port
     * @param destinationPort UDP destination port
     * @return the ICRC value stored
     */
    public int sealIpv4ForSend(MemorySegment payload, long offset, int length, int source, int destination,
            int sourcePort, int destinationPort) {
        int value = ipv4ForSend(payload, offset, length, source, destination, sourcePort, destinationPort);
        store(payload, offset, length, value);
        return value;
    }

    /**
     * The ICRC of a whole IPv4 packet as seen on a raw link or in a capture: the identification,
     * flags, addresses and ports are read from its headers. The header must have no options
     * (IHL 5), as rxe sends.
     *
     * @param packet buffer holding the IPv4 packet
     * @param ipOffset offset of the IPv4 header
     * @return the ICRC value
     */
    public int ipv4Packet(MemorySegment packet, long ipOffset) {
        int total = BigEndian.u16(packet, ipOffset + Ipv4UdpHeader.TOTAL_LENGTH_OFFSET);
        return ipv4(packet, ipOffset + Ipv4UdpHeader.LENGTH, total - Ipv4UdpHeader.LENGTH,
                BigEndian.u32(packet, ipOffset + Ipv4UdpHeader.SOURCE_OFFSET),
                BigEndian.u32(packet, ipOffset + Ipv4UdpHeader.DESTINATION_OFFSET),
                BigEndian.u16(packet, ipOffset + Ipv4UdpHeader.SOURCE_PORT_OFFSET),
                BigEndian.u16(packet, ipOffset + Ipv4UdpHeader.DESTINATION_PORT_OFFSET),
                BigEndian.u16(packet, ipOffset + Ipv4UdpHeader.ID_OFFSET),
                BigEndian.u16(packet, ipOffset + Ipv4UdpHeader.FLAGS_FRAGMENT_OFFSET));
    }

    /**
     * Whether the ICRC stored in a whole IPv4 packet is right.
     *
     * @param packet buffer holding the IPv4 packet
     * @param ipOffset offset of the IPv4 header
     * @return true when it matches, as rxe's {@code rxe_icrc_check} would accept it
     */
    public boolean checkIpv4Packet(MemorySegment packet, long ipOffset) {
        int total = BigEndian.u16(packet, ipOffset + Ipv4UdpHeader.TOTAL_LENGTH_OFFSET);
        return ipv4Packet(packet, ipOffset) == stored(packet, ipOffset + Ipv4UdpHeader.LENGTH,
                total - Ipv4UdpHeader.LENGTH);
    }

    /**
     * Checks the ICRC of a packet received on a UDP socket, which shows everything the ICRC covers
     * except the IPv4 identification and flags, by solving for them (see the class comment).
     * Allocation-free.
     *
     * @param payload buffer holding the UDP payload (BTH .. ICRC)
     * @param offset offset of the BTH
     * @param length UDP payload length including the ICRC
     * @param source IPv4 source address (from the datagram's sender)
     * @param destination IPv4 destination address (IP_PKTINFO, or the bound address)
     * @param sourcePort UDP source port
     * @param destinationPort UDP destination port
     * @return {@link #NO_MATCH}, or the identification in bits 0-15 with {@link #MATCH_DF} set when
     *         the match has DF (flags 0x4000) and clear when it has flags 0; DF is tried first
     */
    public long solveIpv4Id(MemorySegment payload, long offset, int length, int source, int destination,
            int sourcePort, int destinationPort) {
        if (length < MIN_PAYLOAD || length > MAX_PAYLOAD) {
            return NO_MATCH;
        }
        int zero = ipv4(payload, offset, length, source, destination, sourcePort, destinationPort, 0,
                Ipv4UdpHeader.FLAG_DF);
        int d = gfmul(zero ^ stored(payload, offset, length), inverseShift(AFTER_ID + length - LENGTH));
        if ((d & 0xffff) == 0) {
            return MATCH_DF | idOf(d);
        }
        d ^= K_DF;
        if ((d & 0xffff) == 0) {
            return idOf(d);
        }
        return NO_MATCH;
    }

    /**
     * The identification of a {@link #solveIpv4Id} match.
     *
     * @param match a result other than {@link #NO_MATCH}
     * @return 0..65535
     */
    public static int matchedId(long match) {
        return (int) (match & 0xffff);
    }

    /**
     * The IPv4 flags of a {@link #solveIpv4Id} match.
     *
     * @param match a result other than {@link #NO_MATCH}
     * @return 0x4000 (DF) or 0
     */
    public static int matchedFlags(long match) {
        return (match & MATCH_DF) != 0 ? Ipv4UdpHeader.FLAG_DF : 0;
    }

    /**
     * The ICRC of a RoCEv2 packet carried over IPv6 (no extension headers). Addresses are given as
     * two big-endian longs each.
     *
     * @param payload buffer holding the UDP payload (BTH .. ICRC)
     * @param offset offset of the BTH
     * @param length UDP payload length including the ICRC
     * @param sourceHigh first 8 bytes of the source address
     * @param sourceLow last 8 bytes of the source address
     * @param destinationHigh first 8 bytes of the destination address
     * @param destinationLow last 8 bytes of the destination address
     * @param sourcePort UDP source port
     * @param destinationPort UDP destination port
     * @return the ICRC value
     */
    public int ipv6(MemorySegment payload, long offset, int length, long sourceHigh, long sourceLow,
            long destinationHigh, long destinationLow, int sourcePort, int destinationPort) {
        MemorySegment s = scratchSegment;
        // version 6 with the traffic class's high nibble masked, then the rest of the traffic class
        // and the flow label masked (rxe: priority = 0xf, flow_lbl = 0xff 0xff 0xff)
        BigEndian.putU32(s, MASKED_LRH, 0x6fff_ffff);
        BigEndian.putU16(s, MASKED_LRH + 4, Ipv4UdpHeader.UDP_LENGTH + length);
        BigEndian.putU8(s, MASKED_LRH + 6, Ipv4UdpHeader.PROTOCOL_UDP);
        BigEndian.putU8(s, MASKED_LRH + 7, 0xff);
        BigEndian.putU64(s, MASKED_LRH + 8, sourceHigh);
        BigEndian.putU64(s, MASKED_LRH + 16, sourceLow);
        BigEndian.putU64(s, MASKED_LRH + 24, destinationHigh);
        BigEndian.putU64(s, MASKED_LRH + 32, destinationLow);
        BigEndian.putU16(s, V6_UDP_AT, sourcePort);
        BigEndian.putU16(s, V6_UDP_AT + 2, destinationPort);
        BigEndian.putU16(s, V6_UDP_AT + 4, Ipv4UdpHeader.UDP_LENGTH + length);
        BigEndian.putU16(s, V6_UDP_AT + 6, 0xffff);
        MemorySegment.copy(payload, offset, s, V6_BTH_AT, Bth.LENGTH);
        scratch[V6_BTH_AT + Bth.RESV8A_OFFSET] = (byte) 0xff;
        crc.reset();
        crc.update(scratch, 0, V6_PSEUDO);
        update(payload, offset + Bth.LENGTH, length - Bth.LENGTH - LENGTH);
        return (int) crc.getValue();
    }

    /**
     * The ICRC stored in a packet's last 4 bytes (little-endian).
     *
     * @param payload buffer holding the UDP payload
     * @param offset offset of the BTH
     * @param length UDP payload length including the ICRC
     * @return the stored value
     */
    public static int stored(MemorySegment payload, long offset, int length) {
        return payload.get(LE32, offset + length - LENGTH);
    }

    /**
     * Stores an ICRC value little-endian in a packet's last 4 bytes.
     *
     * @param payload buffer holding the UDP payload
     * @param offset offset of the BTH
     * @param length UDP payload length including the ICRC
     * @param value the ICRC value
     */
    public static void store(MemorySegment payload, long offset, int length, int value) {
        payload.set(LE32, offset + length - LENGTH, value);
    }

    private void update(MemorySegment segment, long offset, int length) {
        if (length <= 0) {
            return;
        }
        if (segment.byteSize() > Integer.MAX_VALUE) {
            crc.update(segment.asSlice(offset, length).asByteBuffer());
            return;
        }
        if (segment != viewOf) {
            view = segment.asByteBuffer();
            viewOf = segment;
        }
        view.clear();
        view.limit((int) offset + length).position((int) offset);
        crc.update(view);
    }

    /** x^-(32 + 8n) mod P, cached for the last n. */
    private int inverseShift(int n) {
        if (n != factorN) {
            factor = gfmul(INV_LO[n & 0xff], INV_HI[n >>> 8]);
            factorN = n;
        }
        return factor;
    }

    /** The 16-bit field value {@code v} (sent high byte first) as a polynomial in the register layout. */
    private static int idPolynomial(int v) {
        return ((v >>> 8) & 0xff) << 16 | (v & 0xff) << 24;
    }

    private static int idOf(int polynomial) {
        return ((polynomial >>> 16) & 0xff) << 8 | (polynomial >>> 24) & 0xff;
    }

    /** Multiplication by x modulo P in the reflected representation: one zero bit through the CRC. */
    private static int mulx(int v) {
        return (v >>> 1) ^ (POLY & -(v & 1));
    }

    /** The inverse of {@link #mulx}. */
    private static int divx(int v) {
        return v < 0 ? ((v ^ POLY) << 1) | 1 : v << 1;
    }

    /** a * b modulo P, both in the reflected representation (bit 31 is x^0). */
    private static int gfmul(int a, int b) {
        int p = 0;
        int m = b;
        for (int i = 31; i >= 0; i--) {
            p ^= m & -((a >>> i) & 1);
            m = mulx(m);
        }
        return p;
    }
}
