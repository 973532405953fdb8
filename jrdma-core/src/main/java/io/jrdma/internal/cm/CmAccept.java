package io.jrdma.internal.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.RejectReason;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;

/**
 * Answering a connection request ({@code rdma_accept}, {@code rdma_reject}) and, on the active side, a
 * reply ({@code accept(null)}, the RTU): the handler-context rules (SPEC rule 7), the QP driven to RTR and
 * RTS before the answer goes out ({@code cma_modify_qp_rtr}, {@code cma_modify_qp_rts}), and a failed
 * accept that rejects the peer, flushes the QP and silences the id (rule 6). The same rules hold for an id a
 * whole-device provider's connection manager serves ({@link CmForeign}): only the answer itself, and the QP's
 * transitions, are the provider's.
 */
final class CmAccept {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    private final CmIdImpl id;
    /** The passive side accepted: destroying the id in CONNECT moves its QP to ERROR. */
    private volatile boolean accepted;

    CmAccept(CmIdImpl id) {
        this.id = id;
    }

    boolean accepted() {
        return accepted;
    }

    /**
     * What accept and reject refuse before anything else, each with its own message: a destroyed id, a
     * listening id (it answers no request itself: the ids of its CONNECT_REQUEST events do) and an id
     * that never connected nor got a request (Linux: EINVAL from {@code rdma_accept}'s state check).
     */
    void checkAcceptable(String call) {
        if (id.isDestroyed()) {
            throw new IllegalStateException(id.tag() + " " + call + " on a destroyed id");
        }
        CmState s = id.state();
        if (s == CmState.LISTEN) {
            throw new IllegalStateException(id.tag() + " " + call + " on a listening id: " + call
                    + " the id that its CONNECT_REQUEST event carries (EINVAL)");
        }
        if (id.listener == null && (s == CmState.IDLE || s == CmState.ADDR_BOUND)) {
            throw new IllegalStateException(id.tag() + " " + call + " on an id that is neither connecting nor"
                    + " answering a connection request (state " + s + ", EINVAL)");
        }
    }

    private void checkHandlerContext(String call) {
        if (id.mode == CmIdImpl.Mode.KERNEL && !id.inHandler()) {
            // Rule 7: kernel ULPs call accept/reject from the CONNECT_REQUEST (or CONNECT_RESPONSE)
            // handler, or under rdma_lock_handler.
            throw new IllegalStateException(id.tag() + " " + call
                    + " must be called from this id's event handler (or under lockHandler)");
        }
        if (id.mode != CmIdImpl.Mode.KERNEL && id.listener != null && !id.requests.retrieved()) {
            throw new IllegalStateException(id.tag() + " " + call
                    + " before the CONNECT_REQUEST event was retrieved from the channel");
        }
    }

    void accept(ConnParam param, Ece ece) {
        Ece e = ece == null ? Ece.NONE : ece;
        boolean own = id.mode != CmIdImpl.Mode.KERNEL;
        if (own) {
            id.delivery.lock();
        }
        try {
            checkAcceptable("accept");
            checkHandlerContext("accept");
            if (id.listener == null) {
                id.connecting.establish(param);
                return;
            }
            passive(param, e);
        } finally {
            if (own) {
                id.delivery.unlock();
            }
        }
        if (id.mode == CmIdImpl.Mode.SYNC && id.listener != null && id.qpType() != QpType.UD) {
            id.delivery.awaitSync(CmEventType.ESTABLISHED);
        }
    }

    private void passive(ConnParam param, Ece ece) {
        synchronized (id) {
            id.checkAlive();
            if (id.state() != CmState.CONNECT || !id.requests.outstanding()) {
                throw new IllegalStateException(id.tag() + " accept answers a connection request (state "
                        + id.state() + (id.state() == CmState.CONNECT ? ", the request was answered already" : "")
                        + ", EINVAL)");
            }
        }
        if (param == null && id.qpType() != QpType.UD) {
            // Rule 4: the passive side needs conn_param.
            failed();
            throw new IllegalArgumentException(id.tag() + " accept on the passive side needs connection parameters");
        }
        ConnParam p = param == null ? ConnParam.defaults() : param;
        CmForeign foreign = id.foreign.active() ? id.foreign : null;
        CmBackend backend = foreign == null ? id.backend() : null;
        try {
            CmConnect.checkPrivateData(id, p, foreign != null ? foreign.privateDataLimit("accept")
                    : backend.maxAcceptPrivateData(id), "accept");
            if (ece.vendorId() != 0 && CmConnect.iwarp(id)) {
                throw new IllegalArgumentException(id.tag() + " iWARP has no ECE");
            }
            // IRD/ORD: our initiator depth never exceeds what the remote accepts (its IRD). The passive QP
            // keeps the retry and RNR retry counts the request asked for (cm.c's cm_req_handler; IBTA
            // 12.7.38): accept's retry_count is ignored and its rnr_retry_count goes in the REP, for the
            // active side's QP (rdma_accept(3)).
            id.negotiate(n -> n.withDepths(p.responderResources(), Math.min(p.initiatorDepth(), n.peerIrd())));
            accepted = true;
            id.requests.answered();
            if (foreign != null) {
                Negotiated n = id.negotiated();
                foreign.accept(p.withResources(n.responderResources(), n.initiatorDepth()), ece);
                return;
            }
            if (id.qpImpl() != null && id.qpType() != QpType.UD) {
                try {
                    id.modifyQpRtr();
                    if (id.deviceImpl().transport() != TransportType.IWARP) {
                        id.modifyQpRts();
                    }
                } catch (IllegalArgumentException | IllegalStateException e) {
                    // The attributes come from the request (path MTU, the peer's QPN, PSN, depths): what the QP
                    // refuses is the peer's doing, and fails the accept as rdma_accept does, with EINVAL.
                    throw new RdmaException(Errno.EINVAL, id.tag() + " accept: the QP refuses the connection's"
                            + " attributes: " + e.getMessage(), e);
                }
            }
            backend.accept(id, p, ece);
        } catch (RuntimeException ex) {
            failed();
            throw ex;
        }
    }

    /**
     * Rule 6: a failed accept sends a reject, moves the QP to ERROR (flushing posted receives) and,
     * rule 8, delivers no further event to the id.
     */
    private void failed() {
        id.delivery.suppress(true);
        accepted = false;
        id.modifyQpErr();
        try {
            if (id.foreign.active()) {
                id.foreign.reject(new byte[0], false);
            } else {
                id.backend().reject(id, null, RejectReason.CONSUMER_DEFINED.value());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, id.tag() + " reject after a failed accept failed: " + e);
        }
        id.requests.answered();
    }

    void reject(byte[] privateData, int reason) {
        boolean own = id.mode != CmIdImpl.Mode.KERNEL;
        if (own) {
            id.delivery.lock();
        }
        try {
            checkAcceptable("reject");
            checkHandlerContext("reject");
            CmBackend backend;
            CmForeign foreign = id.foreign.active() ? id.foreign : null;
            synchronized (id) {
                id.checkAlive();
                boolean passive = id.listener != null;
                if (id.state() != CmState.CONNECT || (passive && !id.requests.outstanding())
                        || (!passive && !id.connecting.awaitingEstablish())) {
                    throw new IllegalStateException(id.tag() + " reject answers a connection request (state "
                            + id.state() + (passive && id.state() == CmState.CONNECT
                                    ? ", the request was answered already" : "") + ", EINVAL)");
                }
                backend = foreign == null ? id.backend() : null;
                int max = foreign != null ? foreign.privateDataLimit("reject") : backend.maxRejectPrivateData(id);
                if (privateData != null && privateData.length > max) {
                    throw new IllegalArgumentException(id.tag() + " reject private data of " + privateData.length
                            + " bytes exceeds the " + max + "-byte limit");
                }
                id.connecting.stopAwaiting();
            }
            id.requests.answered();
            byte[] p = privateData == null ? new byte[0] : privateData.clone();
            if (foreign != null) {
                foreign.reject(p, reason == RejectReason.VENDOR_OPTION_NOT_SUPPORTED.value());
            } else {
                backend.reject(id, p, reason);
            }
            id.delivery.suppress(id.listener != null);
        } finally {
            if (own) {
                id.delivery.unlock();
            }
        }
    }
}
