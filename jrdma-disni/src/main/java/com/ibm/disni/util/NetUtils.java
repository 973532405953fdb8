package com.ibm.disni.util;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * IPv4 addresses as DiSNI's {@code int}s (the address bytes read little-endian: the in-memory {@code s_addr} of a
 * little-endian host) and byte-order conversions.
 */
public class NetUtils {
    private static final boolean NATIVE_IS_NETWORK = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    private NetUtils() {
    }

    /**
     * The IPv4 address of host {@code name} as DiSNI's int.
     *
     * @param name a host name or literal
     * @return the address
     * @throws UnknownHostException if the name does not resolve
     */
    public static int getIntIPFromName(String name) throws UnknownHostException {
        return getIntIPFromInetAddress(InetAddress.getByName(name));
    }

    /**
     * An IPv4 address as DiSNI's int.
     *
     * @param address the address
     * @return the int
     * @throws UnknownHostException if {@code address} is null
     */
    public static int getIntIPFromInetAddress(InetAddress address) throws UnknownHostException {
        if (address == null) {
            throw new UnknownHostException("Address not defined");
        }
        return ByteBuffer.wrap(address.getAddress()).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /**
     * DiSNI's int of a dotted IPv4 literal (DiSNI 2.1 returns 0 here; this returns the address).
     *
     * @param string an IPv4 literal
     * @return the int, 0 if the string is not an address
     */
    public static int getIntIPFromInetAddress(String string) {
        try {
            return getIntIPFromName(string);
        } catch (UnknownHostException e) {
            return 0;
        }
    }

    /**
     * The address of an int whose bytes, big-endian, are the address's (DiSNI's reverse conversion).
     *
     * @param intIP the int
     * @return the address
     * @throws UnknownHostException never for four bytes
     */
    public static InetAddress getInetAddressFromIntIP(int intIP) throws UnknownHostException {
        return InetAddress.getByAddress(ByteBuffer.allocate(4).putInt(intIP).array());
    }

    /**
     * Host to network order.
     *
     * @param x the value
     * @return the value in network order
     */
    public static short hostToNetworkByteOrder(short x) {
        return NATIVE_IS_NETWORK ? x : Short.reverseBytes(x);
    }

    /**
     * Host to network order.
     *
     * @param x the value
     * @return the value in network order
     */
    public static char hostToNetworkByteOrder(char x) {
        return NATIVE_IS_NETWORK ? x : Character.reverseBytes(x);
    }

    /**
     * Host to network order.
     *
     * @param x the value
     * @return the value in network order
     */
    public static int hostToNetworkByteOrder(int x) {
        return NATIVE_IS_NETWORK ? x : Integer.reverseBytes(x);
    }

    /**
     * Host to network order.
     *
     * @param x the value
     * @return the value in network order
     */
    public static long hostToNetworkByteOrder(long x) {
        return NATIVE_IS_NETWORK ? x : Long.reverseBytes(x);
    }

    /**
     * Network to host order.
     *
     * @param x the value
     * @return the value in host order
     */
    public static short networkToHostByteOrder(short x) {
        return hostToNetworkByteOrder(x);
    }

    /**
     * Network to host order.
     *
     * @param x the value
     * @return the value in host order
     */
    public static char networkToHostByteOrder(char x) {
        return hostToNetworkByteOrder(x);
    }

    /**
     * Network to host order.
     *
     * @param x the value
     * @return the value in host order
     */
    public static int networkToHostByteOrder(int x) {
        return hostToNetworkByteOrder(x);
    }

    /**
     * Network to host order.
     *
     * @param x the value
     * @return the value in host order
     */
    public static long networkToHostByteOrder(long x) {
        return hostToNetworkByteOrder(x);
    }
}
