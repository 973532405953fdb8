package io.jrdma.internal.cm;

import io.jrdma.cm.PortSpace;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;

/**
 * The QP an id drives ({@code rdma_create_qp}, {@code rdma_init_qp_attr} and cma.c's
 * {@code cma_modify_qp_rtr}, {@code cma_modify_qp_rts}, {@code cma_modify_qp_err}): the attributes
 * come from the route and what the connection negotiated ({@link Negotiated}).
 */
final class CmQp {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    private final CmIdImpl id;
    private volatile QpImpl qp;

    CmQp(CmIdImpl id) {
        this.id = id;
    }

    QpImpl get() {
        return qp;
    }

    QpImpl create(ProtectionDomain pd, QpInitAttr attr) {
        id.checkAlive();
        if (pd == null || attr == null) {
            throw new IllegalArgumentException("protection domain and QP attributes are required");
        }
        DeviceImpl d = id.deviceImpl();
        if (d == null) {
            throw new IllegalStateException(id.tag() + " createQp needs an id bound to a device (resolve the address"
                    + " or take it from a connection request)");
        }
        if (pd.context().device() != d) {
            throw new IllegalArgumentException(id.tag() + " the protection domain is on "
                    + pd.context().device().name() + ", the id on " + d.name());
        }
        if (qp != null) {
            throw new IllegalStateException(id.tag() + " the id already has a QP");
        }
        if (attr.qpType() != id.qpType()) {
            throw new IllegalArgumentException(id.tag() + " the id carries " + id.qpType() + " QPs, not "
                    + attr.qpType());
        }
        QpImpl q = (QpImpl) pd.createQp(attr);
        try {
            q.modify(initQpAttr(QpState.INIT));
            if (id.qpType() == QpType.UD) {
                q.modify(new QpAttr().qpState(QpState.RTR));
                q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(id.negotiated().localPsn()));
            }
        } catch (RuntimeException e) {
            q.close();
            throw e;
        }
        this.qp = q;
        return q;
    }

    void destroy() {
        QpImpl q = qp;
        if (q != null) {
            qp = null;
            q.close();
        }
    }

    QpAttr initQpAttr(QpState s) {
        id.checkAlive();
        DeviceImpl d = id.deviceImpl();
        if (d == null) {
            throw new IllegalStateException(id.tag() + " initQpAttr needs an id bound to a device");
        }
        Negotiated n = id.negotiated();
        QpType type = id.qpType();
        QpAttr a = new QpAttr();
        boolean iwarp = d.transport() == TransportType.IWARP;
        switch (s) {
            case INIT -> {
                a.qpState(QpState.INIT).pkeyIndex(0).portNum(1);
                if (type == QpType.UD) {
                    PortSpace ps = id.portSpace();
                    a.qkey(ps == PortSpace.UDP || ps == PortSpace.IB ? CmIdImpl.RDMA_UDP_QKEY : 0);
                } else {
                    int access = Access.REMOTE_WRITE | Access.REMOTE_READ;
                    if (!iwarp && d.attributes().atomicCap() != AtomicCap.NONE) {
                        access |= Access.REMOTE_ATOMIC;
                    }
                    a.qpAccessFlags(access);
                }
            }
            case RTR -> {
                a.qpState(QpState.RTR);
                if (type != QpType.UD && !iwarp) {
                    Route r = id.route();
                    if (r == null) {
                        throw new IllegalStateException(id.tag() + " no route yet: RTR attributes come with the"
                                + " connection");
                    }
                    int minRnr = id.options.minRnrTimer();
                    a.ahAttr(new AhAttr(r.dgid(), 0, r.flowLabel(), r.hopLimit(), r.trafficClass(), r.sl(), 1, 0))
                            .pathMtu(r.mtu()).destQpNum(n.remoteQpn()).rqPsn(n.localPsn())
                            .maxDestRdAtomic(n.responderResources())
                            .minRnrTimer(minRnr >= 0 ? minRnr : 0);
                }
            }
            case RTS -> {
                a.qpState(QpState.RTS);
                if (type == QpType.UD) {
                    a.sqPsn(n.localPsn());
                } else if (!iwarp) {
                    int ack = id.options.ackTimeout();
                    a.timeout(ack >= 0 ? ack : n.localAckTimeout()).retryCnt(n.retryCount())
                            .rnrRetry(n.rnrRetryCount()).sqPsn(n.remotePsn()).maxRdAtomic(n.initiatorDepth());
                }
            }
            default -> throw new IllegalArgumentException(id.tag() + " the CM gives attributes for INIT, RTR and"
                    + " RTS, not " + s);
        }
        return a;
    }

    /**
     * Moves the QP to RTR as rdma_cm does before connect/accept ({@code cma_modify_qp_rtr}): a QP in
     * RESET goes through INIT first, one in INIT to RTR, one the user already took to RTR or RTS stays. A
     * QP in ERROR (or SQD, SQE) cannot be brought up again: Linux's INIT step fails there, and so does
     * this, with EINVAL.
     *
     * @throws RdmaException EINVAL when the QP is in a state it cannot leave towards RTR
     */
    void toRtr() {
        QpImpl q = qp;
        if (q == null) {
            return;
        }
        QpState s = q.state();
        switch (s) {
            case RESET -> {
                q.modify(initQpAttr(QpState.INIT));
                q.modify(initQpAttr(QpState.RTR));
            }
            case INIT -> q.modify(initQpAttr(QpState.RTR));
            case RTR, RTS -> {
                // the user did the transitions already
            }
            default -> throw new RdmaException(Errno.EINVAL, id.tag() + " the QP " + q.qpNum() + " is in " + s
                    + " and cannot be taken to RTR for the connection (EINVAL)");
        }
    }

    /** Moves the QP to RTS ({@code cma_modify_qp_rts}), through RTR as {@link #toRtr} does. */
    void toRts() {
        QpImpl q = qp;
        if (q == null) {
            return;
        }
        toRtr();
        if (q.state() == QpState.RTR) {
            q.modify(initQpAttr(QpState.RTS));
        }
    }

    /** Moves the QP to ERROR ({@code cma_modify_qp_err}); every outstanding WR is flushed. */
    void toErr() {
        QpImpl q = qp;
        if (q == null || q.isDestroyed()) {
            return;
        }
        QpState s = q.state();
        if (s != QpState.ERR && s != QpState.RESET) {
            try {
                q.modify(new QpAttr().qpState(QpState.ERR));
            } catch (IllegalStateException e) {
                LOG.log(System.Logger.Level.DEBUG, id.tag() + " QP to ERROR: " + e.getMessage());
            }
        }
    }
}
