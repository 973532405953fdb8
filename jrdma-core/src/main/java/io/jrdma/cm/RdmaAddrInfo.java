package io.jrdma.cm;

import io.jrdma.verbs.QpType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
     * passive wildcard) and {@code service} (a port number) into addresses.
     *
     * @throws IllegalArgumentException for a bad port or when neither node nor passive is given
     * @throws io.jrdma.verbs.RdmaException ENOENT-like EADDRNOTAVAIL when the name does not resolve
     */
    public static List<RdmaAddrInfo> resolve(String node, String service, boolean passive, PortSpace ps) {
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
        PortSpace space = ps == null ? PortSpace.TCP : ps;
        List<RdmaAddrInfo> out = new ArrayList<>();
        if (node == null) {
            if (!passive) {
                throw new IllegalArgumentException("an active address needs a node");
            }
            out.add(new RdmaAddrInfo(new InetSocketAddress(port), null, space, space.defaultQpType(), true));
            return out;
        }
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(node);
        } catch (UnknownHostException e) {
            throw new io.jrdma.verbs.RdmaException(io.jrdma.verbs.Errno.EADDRNOTAVAIL, "cannot resolve '" + node
                    + "'", e);
        }
        for (InetAddress a : all) {
            InetSocketAddress sa = new InetSocketAddress(a, port);
            out.add(passive ? new RdmaAddrInfo(sa, null, space, space.defaultQpType(), true)
                    : new RdmaAddrInfo(null, sa, space, space.defaultQpType(), false));
        }
        return out;
    }
}
