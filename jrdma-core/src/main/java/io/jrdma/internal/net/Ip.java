package io.jrdma.internal.net;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * IP address rules shared by the connection manager, the transports and the tools: address families,
 * IPv4-mapped IPv6 addresses, link-local scopes, wildcard and loopback addresses, and how an address is
 * written for a user (RFC 5952: {@code ::1}, {@code fd00:4::15}, {@code [::1]:7174}).
 *
 * <p>An IPv4-mapped address ({@code ::ffff:a.b.c.d}, RFC 4291 section 2.5.5.2) is what RoCE makes of an
 * IPv4 address for its GID ({@code rdma_ip2gid}); as an address given to the connection manager it is
 * not an IPv6 address Linux routes (an IPv6 route lookup of {@code ::ffff:0:0/96} finds nothing) nor one
 * an interface owns. The JDK itself turns the textual form into an {@link Inet4Address}; only
 * {@link Inet6Address#getByAddress(String, byte[], int)} makes an {@link Inet6Address} of one.
 */
public final class Ip {
    /** {@code net.ipv6.bindv6only}: whether IPv6 sockets (and rdma_cm ids) take IPv6 only by default. */
    static final Path BINDV6ONLY = Path.of("/proc/sys/net/ipv6/bindv6only");
    private static final int IPV6_LENGTH = 16;
    private static final int MAPPED_PREFIX = 10;
    private static final InetAddress ANY4 = raw(new byte[4]);
    private static final InetAddress ANY6 = raw(new byte[IPV6_LENGTH]);
    private static final InetAddress LOOPBACK4 = raw(new byte[] {127, 0, 0, 1});
    private static final InetAddress LOOPBACK6 = raw(loopback6Bytes());

    private Ip() {
    }

    private static byte[] loopback6Bytes() {
        byte[] b = new byte[IPV6_LENGTH];
        b[IPV6_LENGTH - 1] = 1;
        return b;
    }

    private static InetAddress raw(byte[] b) {
        try {
            return b.length == IPV6_LENGTH ? Inet6Address.getByAddress(null, b, null) : InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address is always valid", e);
        }
    }

    /**
     * Whether {@code a} is an IPv6 address (not an IPv4 one).
     *
     * @param a the address
     * @return true for an {@link Inet6Address}
     */
    public static boolean isIpv6(InetAddress a) {
        return a instanceof Inet6Address;
    }

    /**
     * Whether two addresses are of one family.
     *
     * @param a an address
     * @param b another
     * @return true when both are IPv4 or both IPv6
     */
    public static boolean sameFamily(InetAddress a, InetAddress b) {
        return isIpv6(a) == isIpv6(b);
    }

    /**
     * Whether {@code a} is an IPv4-mapped IPv6 address, {@code ::ffff:a.b.c.d} (Linux
     * {@code ipv6_addr_v4mapped}).
     *
     * @param a the address
     * @return true for an IPv4-mapped {@link Inet6Address}
     */
    public static boolean isIpv4Mapped(InetAddress a) {
        if (!(a instanceof Inet6Address)) {
            return false;
        }
        byte[] b = a.getAddress();
        for (int i = 0; i < MAPPED_PREFIX; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[MAPPED_PREFIX] == (byte) 0xff && b[MAPPED_PREFIX + 1] == (byte) 0xff;
    }

    /**
     * The IPv4 address an IPv4-mapped address stands for ({@code rdma_gid2ip}); any other address itself.
     *
     * @param a the address
     * @return an {@link Inet4Address} for a mapped address, else {@code a}
     */
    public static InetAddress unmapped(InetAddress a) {
        return isIpv4Mapped(a) ? raw(Arrays.copyOfRange(a.getAddress(), 12, IPV6_LENGTH)) : a;
    }

    /**
     * Whether {@code a} is an IPv6 link-local address ({@code fe80::/10}), which means something only
     * together with an interface (its scope).
     *
     * @param a the address
     * @return true for an IPv6 link-local address
     */
    public static boolean isLinkLocal(InetAddress a) {
        return a instanceof Inet6Address && a.isLinkLocalAddress();
    }

    /**
     * Whether {@code a} carries a scope: an interface or a scope id other than 0.
     *
     * @param a the address
     * @return true when an IPv6 address has a scope
     */
    public static boolean hasScope(InetAddress a) {
        return a instanceof Inet6Address six && (six.getScopeId() != 0 || six.getScopedInterface() != null);
    }

    /**
     * The wildcard address of a family: {@code 0.0.0.0} or {@code ::}.
     *
     * @param ipv6 which family
     * @return the wildcard address
     */
    public static InetAddress wildcard(boolean ipv6) {
        return ipv6 ? ANY6 : ANY4;
    }

    /**
     * The wildcard address of {@code like}'s family.
     *
     * @param like an address
     * @return {@code 0.0.0.0} or {@code ::}
     */
    public static InetAddress wildcardOf(InetAddress like) {
        return wildcard(isIpv6(like));
    }

    /**
     * The loopback address of a family: {@code 127.0.0.1} or {@code ::1}.
     *
     * @param ipv6 which family
     * @return the loopback address
     */
    public static InetAddress loopback(boolean ipv6) {
        return ipv6 ? LOOPBACK6 : LOOPBACK4;
    }

    /**
     * {@code a} with the scope of {@code scoped} when {@code a} is link-local and has none (a GID carries
     * no scope; the interface is the device's).
     *
     * @param a an address
     * @param scoped an address of the interface to use
     * @return the scoped address, or {@code a}
     */
    public static InetAddress withScopeOf(InetAddress a, InetAddress scoped) {
        if (!isLinkLocal(a) || hasScope(a) || !(scoped instanceof Inet6Address s) || !hasScope(s)) {
            return a;
        }
        try {
            NetworkInterface nif = s.getScopedInterface();
            return nif != null ? Inet6Address.getByAddress(null, a.getAddress(), nif)
                    : Inet6Address.getByAddress(null, a.getAddress(), s.getScopeId());
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 16-byte address is always valid", e);
        }
    }

    /**
     * The net.ipv6.bindv6only setting of this host's network namespace (Linux's default 0 where it
     * cannot be read): the AFONLY default of an rdma_cm id bound to an IPv6 address.
     *
     * @return true when IPv6 ids take IPv6 only unless told otherwise
     */
    public static boolean bindV6Only() {
        try {
            return "1".equals(Files.readString(BINDV6ONLY, StandardCharsets.US_ASCII).strip());
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * An address as a user writes it: IPv4 dotted, IPv6 in the RFC 5952 form ({@code ::1},
     * {@code fd00:4::15}, lower case, the longest run of zero groups as {@code ::}), a scope as
     * {@code %name} or {@code %id}. An IPv4-mapped address is written {@code ::ffff:a.b.c.d}.
     *
     * @param a the address
     * @return its text
     */
    public static String literal(InetAddress a) {
        if (!(a instanceof Inet6Address six)) {
            return a.getHostAddress();
        }
        byte[] b = a.getAddress();
        String scope = "";
        if (six.getScopedInterface() != null) {
            scope = "%" + six.getScopedInterface().getName();
        } else if (six.getScopeId() != 0) {
            scope = "%" + six.getScopeId();
        }
        if (isIpv4Mapped(a)) {
            return "::ffff:" + (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff)
                    + scope;
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (b[2 * i] & 0xff) << 8 | (b[2 * i + 1] & 0xff);
        }
        int bestAt = -1;
        int bestLen = 1; // RFC 5952 4.2.2: a single zero group is not shortened
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestLen = j - i;
                bestAt = i;
            }
            i = j;
        }
        StringBuilder s = new StringBuilder(41);
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                s.append("::");
                i += bestLen - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(groups[i]));
        }
        return s.append(scope).toString();
    }

    /**
     * An endpoint as a user writes it: {@code 10.0.4.2:7174}, {@code [fd00:4::2]:7174}; an unresolved
     * one by its host name.
     *
     * @param a the endpoint
     * @return its text
     */
    public static String endpoint(InetSocketAddress a) {
        if (a == null) {
            return "null";
        }
        if (a.isUnresolved()) {
            String h = a.getHostString();
            return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + a.getPort();
        }
        InetAddress ip = a.getAddress();
        return (isIpv6(ip) ? "[" + literal(ip) + "]" : literal(ip)) + ":" + a.getPort();
    }
}
