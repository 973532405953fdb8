package io.jrdma.verbs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit global identifier ({@code union ibv_gid}). On RoCEv2 and the software transports a GID
 * is an IPv6 address, IPv4 addresses being IPv4-mapped ({@code ::ffff:a.b.c.d}), as rxe builds them.
 *
 * @param raw the 16 bytes, network order; copied on construction and on access
 */
public record Gid(byte[] raw) {
    /** The all-zero GID. Linux: an all-zero {@code union ibv_gid}, as unused GID table entries read. */
    public static final Gid ZERO = new Gid(new byte[16]);

    /** Validates and copies the bytes. Linux: {@code union ibv_gid.raw}. */
    public Gid {
        if (raw == null || raw.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes, got " + (raw == null ? "null" : raw.length));
        }
        raw = raw.clone();
    }

    @Override
    public byte[] raw() {
        return raw.clone();
    }

    /**
     * The GID of an IP address: IPv4 is mapped to {@code ::ffff:a.b.c.d}. Linux: {@code rdma_ip2gid} (IPv4 addresses
     * become IPv4-mapped IPv6).
     */
    public static Gid of(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == 16) {
            return new Gid(a);
        }
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        System.arraycopy(a, 0, g, 12, 4);
        return new Gid(g);
    }

    /** Whether this GID is an IPv4-mapped address. Linux: {@code ipv6_addr_v4mapped}. */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    /**
     * Whether this GID is a loopback address, 127.0.0.0/8 (IPv4-mapped) or {@code ::1}, without making an
     * {@link InetAddress} (allocation-free). Linux: {@code ipv4_is_loopback} / {@code ipv6_addr_loopback}
     * on {@code rdma_gid2ip}'s result.
     *
     * @return true for a loopback GID
     */
    public boolean isLoopback() {
        if (isIpv4Mapped()) {
            return raw[12] == 127;
        }
        for (int i = 0; i < 15; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[15] == 1;
    }

    /** The IP address this GID stands for (IPv4 for a mapped GID). Linux: {@code rdma_gid2ip}. */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                return Inet4Address.getByAddress(Arrays.copyOfRange(raw, 12, 16));
            }
            return Inet6Address.getByAddress(null, raw.clone(), null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /** As {@code ibv_devinfo} prints it: eight groups of four hex digits separated by colons. */
    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(raw);
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
