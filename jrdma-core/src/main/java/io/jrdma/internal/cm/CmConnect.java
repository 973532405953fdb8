package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import java.time.Duration;

/**
 * The active side of a connection and its end: {@code rdma_connect} (with the CM's choice of another
 * ephemeral port when the host holds the one it picked), {@code rdma_disconnect} and
 * {@code rdma_notify}. An id a whole-device provider's connection manager serves ({@link CmForeign}) is held
 * to the same rules; the provider's CM sends what the call asks for.
 */
final class CmConnect {
    private final CmIdImpl id;
    /** The active side got a reply without a QP of its own and waits for accept(null) (guarded by the id's lock). */
    private boolean awaitingEstablish;

    CmConnect(CmIdImpl id) {
        this.id = id;
    }

    /** Whether the id is on an iWARP device. */
    static boolean iwarp(CmIdImpl id) {
        io.jrdma.verbs.Device d = id.device();
        return d != null && d.transport() == TransportType.IWARP;
    }

    /** Private data longer than {@code max} is the caller's error. */
    static void checkPrivateData(CmIdImpl id, ConnParam p, int max, String what) {
        if (p != null && p.privateDataLength() > max) {
            io.jrdma.verbs.Device d = id.device();
            throw new IllegalArgumentException(id.tag() + " " + what + " private data of " + p.privateDataLength()
                    + " bytes exceeds the " + max + "-byte limit of " + (d == null ? "the transport" : d.name()));
        }
    }

    void connect(ConnParam param, Ece ece, Duration timeout, boolean locked) {
        if (param == null) {
            throw new IllegalArgumentException("connect needs connection parameters");
        }
        if (id.mode == CmIdImpl.Mode.KERNEL) {
            boolean inHandler = id.inHandler();
            if (locked && !inHandler) {
                throw new IllegalStateException(id.tag() + " connectLocked is for use inside a handler of this id");
            }
            if (!locked && inHandler) {
                throw new IllegalStateException(id.tag()
                        + " connect inside a handler of this id would deadlock in the kernel: use connectLocked");
            }
        }
        CmBackend backend;
        CmForeign foreign = id.foreign.active() ? id.foreign : null;
        synchronized (id) {
            id.checkAlive();
            if (id.state() != CmState.ROUTE_RESOLVED) {
                // Rule 1: connect needs a route (Linux returns EINVAL and sends nothing).
                throw new IllegalStateException(id.tag() + " connect needs a resolved route (state " + id.state()
                        + ", EINVAL)");
            }
            backend = foreign == null ? id.backend() : null;
            checkPrivateData(id, param, foreign != null ? foreign.privateDataLimit("connect")
                    : backend.maxConnectPrivateData(id), "connect");
            if (ece.vendorId() != 0 && iwarp(id)) {
                throw new IllegalArgumentException(id.tag() + " iWARP has no ECE");
            }
            id.negotiate(n -> n.withDepths(param.responderResources(), param.initiatorDepth())
                    .withRetries(param.retryCount(), param.rnrRetryCount()));
            id.state(CmState.CONNECT);
        }
        if (foreign != null) {
            try {
                // The provider's CM bounds the exchange with its own timers (the kernel's CM response timeout);
                // the caller's bound, when given, is core's to keep, as for its own ids.
                foreign.connect(param, ece, timeout);
            } catch (RuntimeException e) {
                id.compareAndSetState(CmState.CONNECT, CmState.ROUTE_RESOLVED);
                throw e;
            }
            awaitConnected();
            return;
        }
        // A transport whose CM port is a real host port (iWARP: the TCP source port, as siw binds it) can
        // find a port the CM picked still held by the host (a socket of an earlier connection in
        // TIME_WAIT or FIN_WAIT, or another program). The user never asked for that port, so the CM picks
        // another (keeping the ones tried, so each attempt tries a new one); a port the user bound fails.
        int[] tried = new int[CmIdImpl.MAX_EPHEMERAL_ATTEMPTS];
        int nTried = 0;
        try {
            if (id.qpImpl() != null && id.qpType() != QpType.UD
                    && id.deviceImpl().transport() == TransportType.IWARP) {
                id.modifyQpRtr(); // cma_connect_iw; a QP that cannot get there fails the connect (EINVAL)
            }
            while (true) {
                try {
                    backend.connect(id, param, ece, timeout);
                    break;
                } catch (RdmaException e) {
                    if (e.errno() != Errno.EADDRINUSE || nTried == tried.length - 1 || !id.addressing.ephemeral()) {
                        throw e;
                    }
                    int next = id.addressing.rebindEphemeral();
                    if (next < 0) {
                        throw e;
                    }
                    tried[nTried++] = next;
                }
            }
        } catch (RuntimeException e) {
            id.compareAndSetState(CmState.CONNECT, CmState.ROUTE_RESOLVED);
            throw e;
        } finally {
            for (int i = 0; i < nTried; i++) {
                PortTable.instance().release(id.portSpace(), id, tried[i]);
            }
        }
        awaitConnected();
    }

    /** A synchronous id's connect returns once the connection is up (or failed). */
    private void awaitConnected() {
        if (id.mode == CmIdImpl.Mode.SYNC) {
            CmEvent e = id.delivery.awaitAny();
            if (e.type() == CmEventType.CONNECT_RESPONSE) {
                id.establish();
                id.delivery.awaitSync(CmEventType.ESTABLISHED);
            } else if (e.type() != CmEventType.ESTABLISHED) {
                throw new RdmaException(CmDelivery.errnoOf(e), id.tag() + " connect failed: " + e);
            }
        }
    }

    /** Called by a backend when the active side got a reply and waits for accept(null). */
    void awaitEstablish() {
        synchronized (id) {
            awaitingEstablish = true;
        }
    }

    /** Whether the active side waits for accept(null) (read under the id's lock). */
    boolean awaitingEstablish() {
        synchronized (id) {
            return awaitingEstablish;
        }
    }

    /** Rule 5: on the active side accept(null) after CONNECT_RESPONSE sends the RTU. */
    void establish(ConnParam param) {
        synchronized (id) {
            id.checkAlive();
            if (!awaitingEstablish || id.state() != CmState.CONNECT) {
                throw new IllegalStateException(id.tag()
                        + " accept on the active side is only valid after CONNECT_RESPONSE (state " + id.state() + ")");
            }
            if (param != null) {
                throw new IllegalArgumentException(id.tag()
                        + " accept after CONNECT_RESPONSE takes no connection parameters (pass null)");
            }
            awaitingEstablish = false;
        }
        if (id.foreign.active()) {
            id.foreign.establish();
            return;
        }
        id.backend().establish(id);
    }

    /** The active side rejects the reply (instead of accept(null)); false if it waits for none. */
    boolean stopAwaiting() {
        synchronized (id) {
            boolean was = awaitingEstablish;
            awaitingEstablish = false;
            return was;
        }
    }

    void disconnect() {
        synchronized (id) {
            id.checkAlive();
            CmState s = id.state();
            if (s != CmState.CONNECT && s != CmState.DISCONNECT) {
                throw new IllegalStateException(id.tag() + " disconnect needs a connected id (state " + s
                        + ", EINVAL)");
            }
            if (id.transport() == null) {
                // rdma_disconnect fails with EINVAL before touching the QP when the id holds no
                // IB/iWARP CM id: a UD id keeps no connection after SIDR, and a connect that was
                // given up has none left.
                throw new IllegalStateException(id.tag() + " disconnect: the id has no connection (" + id.qpType()
                        + ", EINVAL)");
            }
        }
        if (id.foreign.active()) {
            id.foreign.disconnect();
            return;
        }
        id.modifyQpErr();
        id.backend().disconnect(id);
    }

    void notify(AsyncEventType event) {
        if (event != AsyncEventType.COMM_EST) {
            return; // rdma_notify only acts on COMM_EST
        }
        id.checkAlive();
        if (id.state() != CmState.CONNECT) {
            throw new IllegalStateException(id.tag() + " notify needs a connecting id (state " + id.state() + ")");
        }
        id.backend().notifyEstablished(id);
    }
}
