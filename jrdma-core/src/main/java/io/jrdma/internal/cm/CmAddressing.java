package io.jrdma.internal.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.Ece;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Addresses and ports of one id: {@code rdma_bind_addr} (the port table, the device a specific address
 * ties the id to, AFONLY's default), {@code rdma_resolve_addr} (the source address, the device) and
 * {@code rdma_resolve_route}. The port fields are guarded by the id's lock.
 */
final class CmAddressing {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    private final CmIdImpl id;
    private int boundPort;
    private boolean portBound;
    /** The port was picked by the CM (bind to port 0), so the CM may pick another one. */
    private boolean ephemeralPort;
    /** The address the id was bound to (possibly a wildcard), as the port table holds it. */
    private InetAddress boundIp;

    CmAddressing(CmIdImpl id) {
        this.id = id;
    }

    /** The bound port. */
    int port() {
        synchronized (id) {
            return boundPort;
        }
    }

    boolean ephemeral() {
        synchronized (id) {
            return ephemeralPort;
        }
    }

    void bind(InetSocketAddress address) {
        synchronized (id) {
            id.checkAlive();
            if (address == null) {
                throw new IllegalArgumentException("address must not be null");
            }
            if (id.state() != CmState.IDLE) {
                throw new IllegalStateException(id.tag() + " bind needs an idle id (state " + id.state()
                        + ", EINVAL)");
            }
            if (address.isUnresolved()) {
                throw new IllegalArgumentException(id.tag() + " bind address " + address + " is unresolved");
            }
            InetAddress ip = address.getAddress();
            checkBindable(ip);
            DeviceImpl dev = null;
            if (!ip.isAnyLocalAddress()) {
                // cma_acquire_dev_by_src_ip: a specific address ties the id to the device that owns it.
                dev = id.core.deviceFor(ip);
                if (dev == null) {
                    throw new RdmaException(Errno.EADDRNOTAVAIL, id.tag() + " no RDMA device serves "
                            + ip.getHostAddress());
                }
                checkPortSpace(dev);
            }
            // rdma_bind_addr's default: an IPv4 id is AFONLY, an IPv6 one follows net.ipv6.bindv6only
            // (0 on Linux by default, so an IPv6 wildcard also takes IPv4).
            boolean afOnly = id.options.afOnlyOr(!(ip instanceof Inet6Address) || Ip.bindV6Only());
            boundPort = PortTable.instance().bind(id.portSpace(), id, ip, address.getPort(), id.options.reuseAddr(),
                    afOnly);
            portBound = true;
            ephemeralPort = address.getPort() == 0;
            boundIp = ip;
            id.local = new InetSocketAddress(ip, boundPort);
            if (dev != null) {
                id.attachDevice(dev);
            }
            id.state(CmState.ADDR_BOUND);
        }
    }

    /**
     * What rdma_bind_addr refuses before it looks for a device: an IPv4-mapped address, which no
     * interface owns (Linux: EADDRNOTAVAIL from {@code rdma_translate_ip}; bind the IPv4 address), and
     * a link-local address without a scope ({@code cma_check_linklocal}: EINVAL).
     */
    private void checkBindable(InetAddress ip) {
        if (Ip.isIpv4Mapped(ip)) {
            throw new RdmaException(Errno.EADDRNOTAVAIL, id.tag() + " cannot bind the IPv4-mapped address "
                    + Ip.literal(ip) + ": no interface owns it (bind " + Ip.literal(Ip.unmapped(ip)) + ")");
        }
        if (Ip.isLinkLocal(ip) && !Ip.hasScope(ip)) {
            throw new IllegalArgumentException(id.tag() + " the link-local address " + Ip.literal(ip)
                    + " needs a scope, e.g. " + Ip.literal(ip) + "%eth0 (EINVAL)");
        }
    }

    /**
     * Moves an id whose port the CM picked to another free ephemeral port and returns the old one, which
     * stays bound to the id (so it is not picked again) until the caller releases it; -1 when the port
     * was the user's choice, the id is gone, or no other ephemeral port is free.
     */
    int rebindEphemeral() {
        synchronized (id) {
            if (!ephemeralPort || !portBound || id.isDestroyed()) {
                return -1;
            }
            int old = boundPort;
            try {
                boundPort = PortTable.instance().bind(id.portSpace(), id, boundIp, 0, id.options.reuseAddr(),
                        id.options.afOnly());
            } catch (RdmaException none) {
                return -1;
            }
            id.local = new InetSocketAddress(id.local.getAddress(), boundPort);
            return old;
        }
    }

    /** Gives the bound port back (the id is being destroyed). */
    void release() {
        synchronized (id) {
            if (portBound) {
                PortTable.instance().release(id.portSpace(), id, boundPort);
                portBound = false;
            }
        }
    }

    void checkPortSpace(DeviceImpl dev) {
        if (!id.core.backend(dev).supports(id.portSpace())) {
            throw new RdmaException(Errno.EOPNOTSUPP, id.tag() + " " + dev.name() + " does not offer the "
                    + id.portSpace() + " port space");
        }
    }

    void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
        if (dst == null || timeout == null) {
            throw new IllegalArgumentException("destination and timeout are required");
        }
        if (dst.isUnresolved()) {
            throw new IllegalArgumentException("destination " + dst + " is unresolved");
        }
        if (Ip.isIpv4Mapped(dst.getAddress())) {
            // rdma_resolve_ip: an IPv6 route lookup of ::ffff:0:0/96 finds nothing (Linux 6.1 measured:
            // rdma_resolve_addr fails at once with ENETUNREACH).
            throw new RdmaException(Errno.ENETUNREACH, id.tag() + " no IPv6 route to the IPv4-mapped address "
                    + Ip.literal(dst.getAddress()) + " (resolve " + Ip.literal(Ip.unmapped(dst.getAddress())) + ")");
        }
        if (src != null && !src.isUnresolved() && !Ip.sameFamily(src.getAddress(), dst.getAddress())) {
            throw new IllegalArgumentException(id.tag() + " source " + Ip.endpoint(src) + " and destination "
                    + Ip.endpoint(dst) + " are of different address families (EINVAL)");
        }
        DeviceImpl dev;
        InetAddress source;
        synchronized (id) {
            id.checkAlive();
            CmState state = id.state();
            if (state == CmState.IDLE) {
                // cma_bind_addr: without a source the id is bound to the wildcard address of the
                // destination's family; the source address is then picked by route and the device by
                // that address below, so an address no device serves is an ADDR_ERROR event (as
                // Linux's addr_handler reports it), not a failed call.
                bind(src != null ? src : new InetSocketAddress(Ip.wildcardOf(dst.getAddress()), 0));
            } else if (state != CmState.ADDR_BOUND) {
                throw new IllegalStateException(id.tag() + " resolveAddr needs an idle or bound id (state " + state
                        + ")");
            } else if (!Ip.sameFamily(id.local.getAddress(), dst.getAddress())) {
                // rdma_resolve_addr: the bound address and the destination must be of one family, even
                // for an IPv6 wildcard that listens for IPv4 too.
                throw new IllegalArgumentException(id.tag() + " the id is bound to " + Ip.endpoint(id.local)
                        + ", not an address of " + Ip.endpoint(dst) + "'s family (EINVAL)");
            }
            if (id.local.getAddress().isAnyLocalAddress()) {
                id.local = new InetSocketAddress(id.core.sourceFor(dst.getAddress()), boundPort);
            }
            id.remote = dst;
            id.state(CmState.ADDR_QUERY);
            source = id.local.getAddress();
            dev = id.deviceImpl() != null ? id.deviceImpl() : id.core.deviceFor(source);
        }
        if (dev == null || !id.core.backend(dev).supports(id.portSpace())) {
            String why = dev == null ? "no RDMA device serves " + source.getHostAddress()
                    : dev.name() + " does not offer the " + id.portSpace() + " port space";
            LOG.log(System.Logger.Level.DEBUG, id.tag() + " address resolution failed: " + why);
            id.state(CmState.ADDR_BOUND);
            id.event(CmEventType.ADDR_ERROR, Errno.ENODEV.status(), null, null, Ece.NONE);
            if (id.mode == CmIdImpl.Mode.SYNC) {
                id.delivery.awaitSync(CmEventType.ADDR_RESOLVED);
            }
            return;
        }
        id.attachDevice(dev);
        id.state(CmState.ADDR_RESOLVED);
        id.event(CmEventType.ADDR_RESOLVED, 0, null, null, Ece.NONE);
        if (id.mode == CmIdImpl.Mode.SYNC) {
            id.delivery.awaitSync(CmEventType.ADDR_RESOLVED);
        }
    }

    void resolveRoute(Duration timeout) {
        if (timeout == null) {
            throw new IllegalArgumentException("timeout is required");
        }
        synchronized (id) {
            id.checkAlive();
            if (id.state() != CmState.ADDR_RESOLVED) {
                throw new IllegalStateException(id.tag() + " resolveRoute needs a resolved address (state "
                        + id.state() + ", EINVAL)");
            }
            id.state(CmState.ROUTE_QUERY);
        }
        try {
            id.route(id.backend().resolveRoute(id));
        } catch (RuntimeException e) {
            id.state(CmState.ADDR_RESOLVED);
            id.event(CmEventType.ROUTE_ERROR, Errno.EHOSTUNREACH.status(), null, null, Ece.NONE);
            return;
        }
        id.state(CmState.ROUTE_RESOLVED);
        id.event(CmEventType.ROUTE_RESOLVED, 0, null, null, Ece.NONE);
        if (id.mode == CmIdImpl.Mode.SYNC) {
            id.delivery.awaitSync(CmEventType.ROUTE_RESOLVED);
        }
    }
}
