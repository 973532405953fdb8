package io.jrdma.internal.cm.ib;

import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.SidrReq;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;

/**
 * rdma_cm's private-data header ({@code struct cma_hdr}, Linux {@code drivers/infiniband/core/cma.c}),
 * the first 36 bytes of the private data of every REQ and SIDR_REQ rdma_cm sends for an IP address
 * (not for AF_IB, and not on iWARP):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  cma_version  |IPVer|  0    |          source port          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   source address (16 bytes; IPv4: 12 zero bytes + address)   |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | destination address (16 bytes; IPv4: 12 zero bytes + address)|
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The IP version is the high nibble of byte 1 (4 or 6); an IPv4 address is zero padded, not
 * IPv4-mapped. Verified against Linux 6.1 captures: {@code 00 40 958f 00..00 0a00020f 00..00 0a000202}.
 * The source port is the active side's rdma_cm port; the destination port is not here, it is the low
 * 16 bits of the service id.
 *
 * @param cmaVersion {@code cma_version}, 8 bits; Linux sends and expects {@link #CMA_VERSION}
 * @param sourceAddress the active side's address
 * @param sourcePort the active side's rdma_cm port, 16 bits
 * @param destinationAddress the passive side's address, of the same family
 */
public record CmaHeader(int cmaVersion, InetAddress sourceAddress, int sourcePort, InetAddress destinationAddress) {

    /** Length of the header in the private data. */
    public static final int LENGTH = 36;
    /** {@code CMA_VERSION}. */
    public static final int CMA_VERSION = 0x00;
    /** Private data left to the user in a REQ after the header: 92 - 36. */
    public static final int REQ_USER_LIMIT = Req.PRIVATE_DATA_LIMIT - LENGTH;
    /** Private data left to the user in a SIDR_REQ after the header: 216 - 36. */
    public static final int SIDR_REQ_USER_LIMIT = SidrReq.PRIVATE_DATA_LIMIT - LENGTH;

    private static final int IP_VERSION_OFFSET = 1;
    private static final int SOURCE_PORT_OFFSET = 2;
    private static final int SOURCE_ADDRESS_OFFSET = 4;
    private static final int DESTINATION_ADDRESS_OFFSET = 20;
    private static final int IPV4_IN_FIELD = 12;

    /** Checks the widths and that both addresses are of one family. */
    public CmaHeader {
        if ((cmaVersion >>> 8) != 0) {
            throw new IllegalArgumentException("cmaVersion is an 8-bit field, got " + cmaVersion);
        }
        if (sourceAddress == null || destinationAddress == null) {
            throw new IllegalArgumentException("sourceAddress and destinationAddress must not be null");
        }
        if ((sourcePort >>> 16) != 0) {
            throw new IllegalArgumentException("sourcePort is a 16-bit field, got " + sourcePort);
        }
        if (sourceAddress.getClass() != destinationAddress.getClass()) {
            throw new IllegalArgumentException("source and destination must both be IPv4 or both IPv6: "
                    + sourceAddress + ", " + destinationAddress);
        }
    }

    /**
     * A header of {@link #CMA_VERSION}.
     *
     * @param sourceAddress the active side's address
     * @param sourcePort the active side's port
     * @param destinationAddress the passive side's address
     * @return the header
     */
    public static CmaHeader of(InetAddress sourceAddress, int sourcePort, InetAddress destinationAddress) {
        return new CmaHeader(CMA_VERSION, sourceAddress, sourcePort, destinationAddress);
    }

    /**
     * The IP version nibble this header carries.
     *
     * @return 4 or 6
     */
    public int ipVersion() {
        return sourceAddress instanceof Inet4Address ? 4 : 6;
    }

    /**
     * Writes the 36 bytes.
     *
     * @param dst destination array
     * @param offset index of the first byte written
     */
    public void encode(byte[] dst, int offset) {
        Arrays.fill(dst, offset, offset + LENGTH, (byte) 0);
        dst[offset] = (byte) cmaVersion;
        dst[offset + IP_VERSION_OFFSET] = (byte) (ipVersion() << 4);
        dst[offset + SOURCE_PORT_OFFSET] = (byte) (sourcePort >>> 8);
        dst[offset + SOURCE_PORT_OFFSET + 1] = (byte) sourcePort;
        putAddress(sourceAddress, dst, offset + SOURCE_ADDRESS_OFFSET);
        putAddress(destinationAddress, dst, offset + DESTINATION_ADDRESS_OFFSET);
    }

    /**
     * The 36 bytes.
     *
     * @return a new array
     */
    public byte[] encode() {
        byte[] b = new byte[LENGTH];
        encode(b, 0);
        return b;
    }

    /**
     * Private data for a REQ or SIDR_REQ: this header followed by the user's bytes.
     *
     * @param userData the consumer's private data
     * @param limit the message's private-data limit ({@link Req#PRIVATE_DATA_LIMIT} ...)
     * @return header and user data
     * @throws IllegalArgumentException if the user data does not fit after the header
     */
    public Octets prependTo(byte[] userData, int limit) {
        if (LENGTH + userData.length > limit) {
            throw new IllegalArgumentException("at most " + (limit - LENGTH) + " bytes of user private data fit after "
                    + "the rdma_cm header, got " + userData.length);
        }
        byte[] b = new byte[LENGTH + userData.length];
        encode(b, 0);
        System.arraycopy(userData, 0, b, LENGTH, userData.length);
        return Octets.of(b);
    }

    /**
     * Reads a header from the start of some private data.
     *
     * @param privateData a REQ's or SIDR_REQ's private data
     * @return the header, or empty when the data is shorter than 36 bytes or the IP version is
     *         neither 4 nor 6 (the header is then not rdma_cm's)
     */
    public static Optional<CmaHeader> decode(Octets privateData) {
        if (privateData.length() < LENGTH) {
            return Optional.empty();
        }
        byte[] b = privateData.toByteArray();
        int ipVersion = (b[IP_VERSION_OFFSET] & 0xff) >>> 4;
        if (ipVersion != 4 && ipVersion != 6) {
            return Optional.empty();
        }
        int port = (b[SOURCE_PORT_OFFSET] & 0xff) << 8 | (b[SOURCE_PORT_OFFSET + 1] & 0xff);
        return Optional.of(new CmaHeader(b[0] & 0xff, address(b, SOURCE_ADDRESS_OFFSET, ipVersion), port,
                address(b, DESTINATION_ADDRESS_OFFSET, ipVersion)));
    }

    private static void putAddress(InetAddress a, byte[] dst, int at) {
        byte[] raw = a.getAddress();
        System.arraycopy(raw, 0, dst, raw.length == 4 ? at + IPV4_IN_FIELD : at, raw.length);
    }

    private static InetAddress address(byte[] b, int at, int ipVersion) {
        try {
            if (ipVersion == 4) {
                return InetAddress.getByAddress(Arrays.copyOfRange(b, at + IPV4_IN_FIELD, at + 16));
            }
            return Inet6Address.getByAddress(null, Arrays.copyOfRange(b, at, at + 16), null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address is always valid", e);
        }
    }
}
