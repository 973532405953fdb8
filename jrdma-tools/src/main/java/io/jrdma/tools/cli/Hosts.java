package io.jrdma.tools.cli;

import io.jrdma.cm.CmStrings;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;

/**
 * How the tools read the addresses a user gives them and write the ones they report: an IPv4 literal
 * ({@code 10.0.4.2}), an IPv6 literal with or without brackets and with an optional scope ({@code ::1},
 * {@code [fd00:4::15]}, {@code fe80::1%eth1}), or a host name (resolved as {@code getaddrinfo} would,
 * the resolver's first address unless a family is asked for, as perftest's {@code --ipv6-addr} and
 * cmatose's {@code -f} do); where a port comes with the address, {@code HOST:PORT} with an IPv6 literal
 * in brackets ({@code [::1]:9010}). Endpoints are written the same way ({@code [fd00:4::2]:7174}).
 */
public final class Hosts {
    private static final int IPV4_BYTES = 4;
    private static final int IPV6_BYTES = 16;

    private Hosts() {
    }

    /** {@code text} without the brackets around an IPv6 literal. */
    private static String unbracket(String text) {
        String t = text.strip();
        return t.length() > 2 && t.startsWith("[") && t.endsWith("]") ? t.substring(1, t.length() - 1) : t;
    }

    /**
     * Whether {@code text} is an IP literal (IPv4 dotted, or IPv6 with colons, in brackets or not), as
     * opposed to a host name.
     *
     * @param text what the user gave
     * @return true for a literal
     */
    public static boolean isLiteral(String text) {
        String t = unbracket(text);
        int pct = t.indexOf('%');
        String bare = pct >= 0 ? t.substring(0, pct) : t;
        return bare.matches("\\d{1,3}(\\.\\d{1,3}){3}") || bare.indexOf(':') >= 0 && bare.matches("[0-9A-Fa-f:.]+");
    }

    /**
     * Resolves an address the user gave.
     *
     * @param text a literal or a host name
     * @param what how the tool names the argument in its error message, e.g. {@code "-a"}
     * @return the address (the resolver's first one for a name)
     * @throws ToolFailure with {@link ExitCodes#USAGE} when it does not resolve
     */
    public static InetAddress resolve(String text, String what) {
        return resolve(text, what, null);
    }

    /**
     * Resolves an address the user gave, of {@code family} only when it is given.
     *
     * @param text a literal or a host name
     * @param what how the tool names the argument in its error message
     * @param family {@link StandardProtocolFamily#INET6} or {@link StandardProtocolFamily#INET}, or null
     *     for the first address of either
     * @return the address
     * @throws ToolFailure with {@link ExitCodes#USAGE} when it does not resolve, or has no address of
     *     {@code family}
     */
    public static InetAddress resolve(String text, String what, StandardProtocolFamily family) {
        String t = unbracket(text);
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(t);
        } catch (UnknownHostException e) {
            throw new ToolFailure(what + ": cannot resolve " + text + " (Name or service not known)", ExitCodes.USAGE,
                    e);
        }
        if (all.length == 1 && !(all[0] instanceof Inet6Address) && t.indexOf(':') >= 0) {
            // An IPv4-mapped literal (::ffff:10.0.4.15), which the JDK turns into IPv4: getaddrinfo gives
            // it as AF_INET6, and rdma_cm refuses it as Linux does (no IPv6 route, no interface owns it).
            all[0] = mapped(all[0]);
        }
        for (InetAddress a : all) {
            if (family == null || (a instanceof Inet6Address) == (family == StandardProtocolFamily.INET6)) {
                return a;
            }
        }
        throw new ToolFailure(what + ": " + text + " has no " + (family == StandardProtocolFamily.INET6 ? "IPv6"
                : "IPv4") + " address (Address family for hostname not supported)", ExitCodes.USAGE, null);
    }

    private static InetAddress mapped(InetAddress v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(v4.getAddress(), 0, b, 12, 4);
        try {
            return Inet6Address.getByAddress(null, b, null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 16-byte address is always valid", e);
        }
    }

    /**
     * Reads {@code HOST:PORT}: {@code 10.0.4.2:9010}, {@code [fd00:4::2]:9010}, {@code name:9010}. An IPv6
     * literal needs the brackets (a bare one is all colons).
     *
     * @param text what the user gave
     * @param what how the tool names the argument in its error message
     * @return the endpoint, resolved
     * @throws ToolFailure with {@link ExitCodes#USAGE} when it is not HOST:PORT or does not resolve
     */
    public static InetSocketAddress hostPort(String text, String what) {
        String t = text.strip();
        int colon = t.lastIndexOf(':');
        boolean bracketed = t.startsWith("[");
        if (colon <= 0 || (bracketed ? t.charAt(colon - 1) != ']' : t.indexOf(':') != colon)) {
            throw new ToolFailure(what + " wants HOST:PORT (an IPv6 address in brackets, [::1]:9010), got '" + text
                    + "'", ExitCodes.USAGE, null);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new ToolFailure(what + ": port '" + t.substring(colon + 1) + "' is not 0..65535", ExitCodes.USAGE,
                    null);
        }
        return new InetSocketAddress(resolve(t.substring(0, colon), what), port);
    }

    /**
     * An endpoint as the tools write it: {@code 10.0.4.2:7174}, {@code [fd00:4::2]:7174}.
     *
     * @param a the endpoint
     * @return its text
     */
    public static String endpoint(InetSocketAddress a) {
        return a == null ? "null" : CmStrings.endpoint(a);
    }

    /**
     * An address as the tools write it: {@code 10.0.4.2}, {@code fd00:4::2}.
     *
     * @param a the address
     * @return its text
     */
    public static String literal(InetAddress a) {
        return CmStrings.address(a);
    }

    /**
     * The wildcard address a server listens on when no address is given: {@code 0.0.0.0} or {@code ::}.
     *
     * @param ipv6 which family
     * @return the wildcard address
     */
    public static InetAddress wildcard(boolean ipv6) {
        try {
            return InetAddress.getByAddress(new byte[ipv6 ? IPV6_BYTES : IPV4_BYTES]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address is always valid", e);
        }
    }
}
