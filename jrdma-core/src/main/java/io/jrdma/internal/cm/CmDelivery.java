package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Event delivery of one id: events go out on the connection manager's {@link SerialExecutor} under the
 * id's handler lock ({@code handler_mutex} in cma.c), to the kernel-style handler, the event channel, or
 * a synchronous id's private channel. After the id is destroyed, or after a failed accept or a reject of
 * a request, none is delivered.
 *
 * <p>The handler lock orders delivery with the calls a handler makes (accept, reject, connectLocked) and
 * with {@code lockHandler}; it guards no state of the id (see the package documentation).
 */
final class CmDelivery {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    private final CmIdImpl id;
    private final CmEventHandler handler;
    private final ReentrantLock handlerLock = new ReentrantLock();
    /** No further event is delivered to the id (a failed accept, a rejected request). */
    private volatile boolean suppressed;

    CmDelivery(CmIdImpl id, CmEventHandler handler) {
        this.id = id;
        this.handler = handler;
    }

    CmEventHandler handler() {
        return handler;
    }

    void suppress(boolean s) {
        suppressed = s;
    }

    void lock() {
        handlerLock.lock();
    }

    void unlock() {
        handlerLock.unlock();
    }

    boolean held() {
        return handlerLock.isHeldByCurrentThread();
    }

    /** Hands {@code e} to the executor; a connection that ended has its QP moved to ERROR first. */
    void post(CmEvent e) {
        id.core.events().cmEvent(id, e);
        CmEventType t = e.type();
        if (t == CmEventType.DISCONNECTED || t == CmEventType.REJECTED || t == CmEventType.UNREACHABLE
                || t == CmEventType.CONNECT_ERROR) {
            // The QP of a connection that ended goes to ERROR so that every posted WR is flushed.
            id.modifyQpErr();
        }
        id.core.executor().execute(() -> dispatch(e));
    }

    private void dispatch(CmEvent e) {
        boolean destroy;
        handlerLock.lock();
        try {
            if (id.isDestroyed() || suppressed) {
                return;
            }
            CmIdImpl listener = id.listener;
            if (e.type() == CmEventType.CONNECT_REQUEST && listener != null && listener.isDestroyed()) {
                // The listener went away before the request was delivered: reject it.
                id.requests.rejectQuietly();
                destroy = true;
            } else {
                destroy = deliver(e);
            }
        } finally {
            handlerLock.unlock();
        }
        if (destroy) {
            id.destroyNoWait();
        }
    }

    /** Delivers {@code e}; true when the id must be destroyed (a request nobody can answer). */
    private boolean deliver(CmEvent e) {
        CmIdImpl listener = id.listener;
        try {
            if (id.mode == CmIdImpl.Mode.SYNC && e.type() == CmEventType.CONNECT_REQUEST && listener != null) {
                return !listener.requests.queueForGetRequest(id);
            }
            if (id.mode != CmIdImpl.Mode.KERNEL) {
                ChannelImpl ch = id.channel;
                if (ch != null) {
                    ch.enqueue(e);
                }
                return false;
            }
            return handler.onEvent(id, e);
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, id.tag() + " event handler threw on " + e.type().str(), ex);
            // cma.c destroys the id of a CONNECT_REQUEST whose handler returned an error: the request is
            // rejected and its backlog slot given back, never held by an id nobody answers.
            return e.type() == CmEventType.CONNECT_REQUEST && listener != null;
        }
    }

    /** The next event on a synchronous id's private channel, whatever it is. */
    CmEvent awaitAny() {
        ChannelImpl ch = id.channel;
        try {
            CmEvent e = ch.getEvent();
            ch.ackEvent(e);
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new RdmaException(Errno.EINTR, id.tag() + " interrupted waiting for an event", ie);
        }
    }

    /** Waits on a synchronous id's private channel for {@code expected}; throws on any other event. */
    CmEvent awaitSync(CmEventType expected) {
        CmEvent e = awaitAny();
        if (e.type() != expected) {
            throw new RdmaException(errnoOf(e), id.tag() + " expected " + expected.str() + " but got " + e);
        }
        return e;
    }

    /** The errno a failed synchronous call reports for {@code e}: its status, or ECONNREFUSED. */
    static Errno errnoOf(CmEvent e) {
        return e.status() < 0 && Errno.of(e.status()) != null ? Errno.of(e.status()) : Errno.ECONNREFUSED;
    }
}
