package io.jrdma.internal.roce;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over an IPv4 header without options followed by a UDP header, 28 bytes: what carries a
 * RoCEv2 packet (RFC 791, RFC 768; RoCEv2 = IBTA Vol 1 Annex A17, UDP destination port 4791) and
 * what its ICRC covers ({@link Icrc}). Used to build frames for a raw link and the ICRC's
 * pseudo-header, and to read captured frames.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |Version|  IHL  |      TOS      |          Total Length         |  0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         Identification        |Flags|    Fragment Offset      |  4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |      TTL      |  Protocol 17  |        Header Checksum        |  8
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       Source Address                          | 12
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    Destination Address                        | 16
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          Source Port          |     Destination Port (4791)   | 20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          UDP Length           |         UDP Checksum          | 24
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * Addresses are ints in network order ({@code 10.0.4.2} is {@code 0x0a000402}).
 */
public final class Ipv4UdpHeader {
    /** IPv4 (20) + UDP (8). */
    public static final int LENGTH = 28;
    /** IPv4 header without options. */
    public static final int IPV4_LENGTH = 20;
    /** UDP header. */
    public static final int UDP_LENGTH = 8;
    /** Offset of version and IHL. */
    public static final int VERSION_IHL_OFFSET = 0;
    /** Offset of the type of service. */
    public static final int TOS_OFFSET = 1;
    /** Offset of the total length. */
    public static final int TOTAL_LENGTH_OFFSET = 2;
    /** Offset of the identification. */
    public static final int ID_OFFSET = 4;
    /** Offset of flags and fragment offset. */
    public static final int FLAGS_FRAGMENT_OFFSET = 6;
    /** Offset of the TTL. */
    public static final int TTL_OFFSET = 8;
    /** Offset of the protocol. */
    public static final int PROTOCOL_OFFSET = 9;
    /** Offset of the header checksum. */
    public static final int CHECKSUM_OFFSET = 10;
    /** Offset of the source address. */
    public static final int SOURCE_OFFSET = 12;
    /** Offset of the destination address. */
    public static final int DESTINATION_OFFSET = 16;
    /** Offset of the UDP source port. */
    public static final int SOURCE_PORT_OFFSET = 20;
    /** Offset of the UDP destination port. */
    public static final int DESTINATION_PORT_OFFSET = 22;
    /** Offset of the UDP length. */
    public static final int UDP_LENGTH_OFFSET = 24;
    /** Offset of the UDP checksum. */
    public static final int UDP_CHECKSUM_OFFSET = 26;
    /** Version 4, IHL 5 (no options). */
    public static final int VERSION_IHL = 0x45;
    /** Flags: don't fragment. rxe always sets it; so does a Java socket with IP_DONTFRAGMENT. */
    public static final int FLAG_DF = 0x4000;
    /** Flags: more fragments. */
    public static final int FLAG_MF = 0x2000;
    /** Fragment offset bits. */
    public static final int MASK_FRAGMENT_OFFSET = 0x1fff;
    /** IP protocol number of UDP. */
    public static final int PROTOCOL_UDP = 17;
    /** The RoCEv2 UDP destination port (IANA). */
    public static final int ROCE_V2_PORT = 4791;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight; {@link #wrap} it before use. */
    public Ipv4UdpHeader() {
    }

    /**
     * Points this flyweight at a header.
     *
     * @param segment the buffer
     * @param offset offset of the IPv4 header
     * @return this
     */
    public Ipv4UdpHeader wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * Writes both headers for a UDP payload of {@code udpPayloadLength} bytes; the IPv4 checksum is
     * left 0 (see {@link #updateChecksum()}) and so is the UDP checksum (allowed on IPv4).
     *
     * @param source source address
     * @param destination destination address
     * @param sourcePort UDP source port
     * @param destinationPort UDP destination port
     * @param udpPayloadLength bytes after the UDP header (for RoCEv2: BTH through ICRC)
     * @param id IPv4 identification
     * @param flagsFragment flags and fragment offset ({@link #FLAG_DF} for RoCEv2)
     * @param ttl time to live
     * @param tos type of service (DSCP and ECN)
     * @return this
     */
    public Ipv4UdpHeader write(int source, int destination, int sourcePort, int destinationPort, int udpPayloadLength,
            int id, int flagsFragment, int ttl, int tos) {
        BigEndian.putU8(segment, offset + VERSION_IHL_OFFSET, VERSION_IHL);
        BigEndian.putU8(segment, offset + TOS_OFFSET, tos);
        BigEndian.putU16(segment, offset + TOTAL_LENGTH_OFFSET, LENGTH + udpPayloadLength);
        BigEndian.putU16(segment, offset + ID_OFFSET, id);
        BigEndian.putU16(segment, offset + FLAGS_FRAGMENT_OFFSET, flagsFragment);
        BigEndian.putU8(segment, offset + TTL_OFFSET, ttl);
        BigEndian.putU8(segment, offset + PROTOCOL_OFFSET, PROTOCOL_UDP);
        BigEndian.putU16(segment, offset + CHECKSUM_OFFSET, 0);
        BigEndian.putU32(segment, offset + SOURCE_OFFSET, source);
        BigEndian.putU32(segment, offset + DESTINATION_OFFSET, destination);
        BigEndian.putU16(segment, offset + SOURCE_PORT_OFFSET, sourcePort);
        BigEndian.putU16(segment, offset + DESTINATION_PORT_OFFSET, destinationPort);
        BigEndian.putU16(segment, offset + UDP_LENGTH_OFFSET, UDP_LENGTH + udpPayloadLength);
        BigEndian.putU16(segment, offset + UDP_CHECKSUM_OFFSET, 0);
        return this;
    }

    /**
     * Computes and stores the IPv4 header checksum (RFC 1071 over the 20 header bytes).
     *
     * @return this
     */
    public Ipv4UdpHeader updateChecksum() {
        BigEndian.putU16(segment, offset + CHECKSUM_OFFSET, 0);
        int sum = 0;
        for (int i = 0; i < IPV4_LENGTH; i += 2) {
            sum += BigEndian.u16(segment, offset + i);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        BigEndian.putU16(segment, offset + CHECKSUM_OFFSET, ~sum);
        return this;
    }

    /**
     * Version and IHL byte.
     *
     * @return {@link #VERSION_IHL} for a header without options
     */
    public int versionIhl() {
        return BigEndian.u8(segment, offset + VERSION_IHL_OFFSET);
    }

    /**
     * Type of service.
     *
     * @return the TOS byte
     */
    public int tos() {
        return BigEndian.u8(segment, offset + TOS_OFFSET);
    }

    /**
     * Sets the type of service.
     *
     * @param tos the TOS byte
     * @return this
     */
    public Ipv4UdpHeader tos(int tos) {
        BigEndian.putU8(segment, offset + TOS_OFFSET, tos);
        return this;
    }

    /**
     * IPv4 total length.
     *
     * @return header plus payload bytes
     */
    public int totalLength() {
        return BigEndian.u16(segment, offset + TOTAL_LENGTH_OFFSET);
    }

    /**
     * IPv4 identification.
     *
     * @return 16 bits
     */
    public int id() {
        return BigEndian.u16(segment, offset + ID_OFFSET);
    }

    /**
     * Flags and fragment offset.
     *
     * @return 16 bits
     */
    public int flagsFragment() {
        return BigEndian.u16(segment, offset + FLAGS_FRAGMENT_OFFSET);
    }

    /**
     * Time to live.
     *
     * @return 0..255
     */
    public int ttl() {
        return BigEndian.u8(segment, offset + TTL_OFFSET);
    }

    /**
     * Sets the time to live.
     *
     * @param ttl 0..255
     * @return this
     */
    public Ipv4UdpHeader ttl(int ttl) {
        BigEndian.putU8(segment, offset + TTL_OFFSET, ttl);
        return this;
    }

    /**
     * IP protocol.
     *
     * @return {@link #PROTOCOL_UDP} for RoCEv2
     */
    public int protocol() {
        return BigEndian.u8(segment, offset + PROTOCOL_OFFSET);
    }

    /**
     * IPv4 header checksum.
     *
     * @return 16 bits
     */
    public int headerChecksum() {
        return BigEndian.u16(segment, offset + CHECKSUM_OFFSET);
    }

    /**
     * Overwrites the IPv4 header checksum.
     *
     * @param checksum 16 bits
     * @return this
     */
    public Ipv4UdpHeader headerChecksum(int checksum) {
        BigEndian.putU16(segment, offset + CHECKSUM_OFFSET, checksum);
        return this;
    }

    /**
     * Source address.
     *
     * @return network-order int
     */
    public int source() {
        return BigEndian.u32(segment, offset + SOURCE_OFFSET);
    }

    /**
     * Destination address.
     *
     * @return network-order int
     */
    public int destination() {
        return BigEndian.u32(segment, offset + DESTINATION_OFFSET);
    }

    /**
     * UDP source port.
     *
     * @return 0..65535
     */
    public int sourcePort() {
        return BigEndian.u16(segment, offset + SOURCE_PORT_OFFSET);
    }

    /**
     * UDP destination port.
     *
     * @return 0..65535
     */
    public int destinationPort() {
        return BigEndian.u16(segment, offset + DESTINATION_PORT_OFFSET);
    }

    /**
     * UDP length.
     *
     * @return UDP header plus payload bytes
     */
    public int udpLength() {
        return BigEndian.u16(segment, offset + UDP_LENGTH_OFFSET);
    }

    /**
     * UDP checksum.
     *
     * @return 16 bits (0: none)
     */
    public int udpChecksum() {
        return BigEndian.u16(segment, offset + UDP_CHECKSUM_OFFSET);
    }

    /**
     * Overwrites the UDP checksum.
     *
     * @param checksum 16 bits
     * @return this
     */
    public Ipv4UdpHeader udpChecksum(int checksum) {
        BigEndian.putU16(segment, offset + UDP_CHECKSUM_OFFSET, checksum);
        return this;
    }
}
