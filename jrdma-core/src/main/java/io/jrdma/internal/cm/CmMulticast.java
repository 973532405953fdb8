package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.Ece;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The multicast groups of a UD id ({@code rdma_join_multicast}, {@code rdma_leave_multicast}, cma.c's
 * {@code mc_list}): the backend joins, the id's QP is attached before the user hears of the join, and
 * destroying the id leaves every group. The list is guarded by the id's lock.
 */
final class CmMulticast {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    /** One membership ({@code struct cma_multicast}): the group and the QP attached for it. */
    private static final class Membership {
        final InetAddress group;
        final Gid mgid;
        volatile QpImpl attached;

        Membership(InetAddress group, Gid mgid) {
            this.group = group;
            this.mgid = mgid;
        }
    }

    private final CmIdImpl id;
    private final List<Membership> joined = new ArrayList<>(0);

    CmMulticast(CmIdImpl id) {
        this.id = id;
    }

    void join(InetAddress group, Object mcContext) {
        if (group == null || !group.isMulticastAddress()) {
            throw new IllegalArgumentException(id.tag() + " " + (group == null ? "null" : group.getHostAddress())
                    + " is not a multicast address (EINVAL)");
        }
        Membership m;
        UdParam ud;
        synchronized (id) {
            id.checkAlive();
            if (id.qpType() != QpType.UD) {
                throw new IllegalStateException(id.tag() + " multicast needs a UD id, not " + id.qpType()
                        + " (EINVAL)");
            }
            CmState state = id.state();
            if ((state != CmState.ADDR_BOUND && state != CmState.ADDR_RESOLVED) || id.deviceImpl() == null) {
                // rdma_join_multicast: an id bound to a device, in ADDR_BOUND or ADDR_RESOLVED.
                throw new IllegalStateException(id.tag() + " joinMulticast needs an id bound to a device (state "
                        + state + (id.deviceImpl() == null ? ", no device" : "") + ", EINVAL)");
            }
            for (Membership o : joined) {
                if (o.group.equals(group)) {
                    throw new RdmaException(Errno.EADDRINUSE, id.tag() + " already joined " + group.getHostAddress());
                }
            }
            // cma_iboe_set_mgid for RoCEv2 GIDs: an IPv4 group becomes ::ffff:a.b.c.d, IPv6 is its own GID.
            Gid mgid = Gid.of(group);
            ud = id.backend().joinMulticast(id, mgid, group);
            m = new Membership(group, mgid);
            joined.add(m);
        }
        // librdmacm's ucma_process_join: the id's QP is attached before the user sees the event, and a failed
        // attach turns MULTICAST_JOIN into MULTICAST_ERROR.
        int status = 0;
        QpImpl q = id.qpImpl();
        if (q != null) {
            try {
                q.attachMcast(m.mgid, 0);
                m.attached = q;
            } catch (RdmaException e) {
                status = e.errno().status();
            } catch (IllegalStateException | IllegalArgumentException e) {
                status = Errno.EINVAL.status();
            }
        }
        id.event(new CmEvent(status == 0 ? CmEventType.MULTICAST_JOIN : CmEventType.MULTICAST_ERROR, id, null,
                status, null, ud, Ece.NONE, mcContext));
        if (id.mode == CmIdImpl.Mode.SYNC) {
            id.delivery.awaitSync(CmEventType.MULTICAST_JOIN);
        }
    }

    void leave(InetAddress group) {
        Membership m = null;
        synchronized (id) {
            id.checkAlive();
            for (Membership o : joined) {
                if (o.group.equals(group)) {
                    m = o;
                    break;
                }
            }
            if (m == null) {
                throw new RdmaException(Errno.EADDRNOTAVAIL, id.tag() + " has not joined "
                        + (group == null ? "null" : group.getHostAddress()));
            }
            joined.remove(m);
        }
        detach(m);
    }

    List<InetAddress> groups() {
        synchronized (id) {
            List<InetAddress> out = new ArrayList<>(joined.size());
            for (Membership m : joined) {
                out.add(m.group);
            }
            return out;
        }
    }

    /** {@code cma_leave_mc_groups}: the id is being destroyed. */
    void leaveAll() {
        List<Membership> all;
        synchronized (id) {
            all = new ArrayList<>(joined);
            joined.clear();
        }
        for (Membership m : all) {
            detach(m);
        }
    }

    private void detach(Membership m) {
        QpImpl q = m.attached;
        m.attached = null;
        if (q != null && !q.isDestroyed()) {
            try {
                q.detachMcast(m.mgid, 0);
            } catch (RdmaException e) {
                // the user detached the QP already
                LOG.log(System.Logger.Level.DEBUG, id.tag() + " detach from " + m.group + ": " + e.getMessage());
            }
        }
    }
}
