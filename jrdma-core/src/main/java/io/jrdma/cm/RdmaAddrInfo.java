package io.jrdma.cm;

import io.jrdma.internal.net.Ip;
import io.jrdma.verbs.QpType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * An address for the connection manager ({@code struct rdma_addrinfo}), from
 * {@link #resolve(String, String, boolean, PortSpace)} ({@code rdma_getaddrinfo}).
 *
 * @param source the local address (passive: the address to listen on), or {@code null}
 * @param destination the remote address (active), or {@code null}
 * @param portSpace the port space
 * @param qpType the QP type
 * @param passive whether the address is for a listener ({@code RAI_PASSIVE})
 */
public record RdmaAddrInfo(InetSocketAddress source, InetSocketAddress destination, PortSpace portSpace,
        QpType qpType, boolean passive) {

    /**
     * {@code rdma_getaddrinfo}: resolves {@code node} (a host name or literal; {@code null} for a
     * passive wildcard) and {@code service} (a port number) into addresses of both families.
     *
     * @throws IllegalArgumentException for a bad port or when neither node nor passive is given
     * @throws io.jrdma.verbs.RdmaException ENOENT-like EADDRNOTAVAIL when the name does not resolve
     */
    public static List<RdmaAddrInfo> resolve(String node, String service, boolean passive, PortSpace ps) {
        return resolve(node, service, passive, ps, null);
    }

    /**
     * {@code rdma_getaddrinfo} with {@code hints.ai_family}: resolves {@code node} (a host name, an IPv4
     * literal, an IPv6 literal with or without brackets and with an optional {@code %scope}; {@code null}
     * for a passive wildcard) and {@code service} (a port number) into the addresses of {@code family},
     * or of both families when it is {@code null}. As glibc's {@code getaddrinfo} orders them, a passive
     * wildcard gives {@code 0.0.0.0} then {@code ::} (an IPv6 wildcard id also takes IPv4 requests unless
     * it is AFONLY), and a name gives its addresses in the resolver's order.
     *
     * @param node the host, or null
     * @param service the port, or null/empty for 0
     * @param passive whether the addresses are for a listener ({@code RAI_PASSIVE})
     * @param ps the port space (null: TCP)
     * @param family {@link StandardProtocolFamily#INET} or {@link StandardProtocolFamily#INET6}, or null
     *     for both
     * @return the addresses, at least one
     * @throws IllegalArgumentException for a bad port or family, or when neither node nor passive is given
     * @throws io.jrdma.verbs.RdmaException EADDRNOTAVAIL when the name has no address (of that family)
     */
    public static List<RdmaAddrInfo> resolve(String node, String service, boolean passive, PortSpace ps,
            ProtocolFamily family) {
        int port = 0;
        if (service != null && !service.isEmpty()) {
            try {
                port = Integer.parseInt(service);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("service must be a port number: '" + service + "'");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        if (family != null && family != StandardProtocolFamily.INET && family != StandardProtocolFamily.INET6) {
            throw new IllegalArgumentException("family must be INET or INET6, not " + family);
        }
        PortSpace space = ps == null ? PortSpace.TCP : ps;
        List<InetAddress> all = new ArrayList<>();
        if (node == null) {
            if (!passive) {
                throw new IllegalArgumentException("an active address needs a node");
            }
            all.add(Ip.wildcard(false));
            all.add(Ip.wildcard(true));
        } else {
            String name = node.length() > 2 && node.startsWith("[") && node.endsWith("]")
                    ? node.substring(1, node.length() - 1) : node;
            try {
                all.addAll(List.of(InetAddress.getAllByName(name)));
            } catch (UnknownHostException e) {
                throw new io.jrdma.verbs.RdmaException(io.jrdma.verbs.Errno.EADDRNOTAVAIL, "cannot resolve '" + node
                        + "'", e);
            }
        }
        List<RdmaAddrInfo> out = new ArrayList<>();
        for (InetAddress a : all) {
            if (family != null && Ip.isIpv6(a) != (family == StandardProtocolFamily.INET6)) {
                continue;
            }
            InetSocketAddress sa = new InetSocketAddress(a, port);
            out.add(passive ? new RdmaAddrInfo(sa, null, space, space.defaultQpType(), true)
                    : new RdmaAddrInfo(null, sa, space, space.defaultQpType(), false));
        }
        if (out.isEmpty()) {
            throw new io.jrdma.verbs.RdmaException(io.jrdma.verbs.Errno.EADDRNOTAVAIL, "'" + node + "' has no "
                    + (family == StandardProtocolFamily.INET6 ? "IPv6" : "IPv4") + " address");
        }
        return out;
    }
}
