package io.jrdma.internal.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.Ece;
import io.jrdma.internal.verbs.DeviceImpl;

/**
 * How an id ends: {@code rdma_destroy_id} (cma.c's {@code _destroy_id}) and the removal of its device
 * ({@code cma_process_remove}, {@code cma_remove_id_dev}). Holds the destroyed flag, set once under the
 * handler lock and the id's lock, so that a delivery in progress ends before it is set and none starts
 * after; the rest of an end is the other parts' cleanup, in cma.c's order.
 */
final class CmTeardown {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    private final CmIdImpl id;
    private volatile boolean destroyed;

    CmTeardown(CmIdImpl id) {
        this.id = id;
    }

    /** Whether the id is destroyed. */
    boolean destroyed() {
        return destroyed;
    }

    /**
     * The device {@code d} is being removed: an id bound to it moves to DEVICE_REMOVAL, stops what it was
     * doing (a listener stops listening, the QP goes to ERROR) and gets DEVICE_REMOVAL; the user must destroy
     * it. A wildcard listener only stops listening on that device, silently (its per-device listen ids are
     * internal in Linux).
     */
    void deviceRemoved(DeviceImpl d) {
        if (id.deviceImpl() != d) {
            id.requests.stop(d);
            return;
        }
        synchronized (id) {
            CmState s = id.state();
            if (destroyed || s == CmState.DESTROYING || s == CmState.DEVICE_REMOVAL) {
                return;
            }
            id.state(CmState.DEVICE_REMOVAL);
            if (s == CmState.LISTEN) {
                id.requests.stop();
            }
        }
        id.modifyQpErr();
        id.event(CmEventType.DEVICE_REMOVAL, 0, null, null, Ece.NONE);
    }

    /**
     * Destroys the id: marks it, leaves its groups, destroys the requests nobody took, stops listening,
     * rejects a request not yet answered, lets the backend drop its connection (the QP to ERROR first if
     * the connection was accepted but not yet established), gives the port back and unregisters the id.
     *
     * @param awaitAcks whether to wait, on an event channel, until the id's delivered events are
     *     acknowledged ({@code rdma_destroy_id}); not when the connection manager is closing
     */
    void destroy(boolean awaitAcks) {
        ChannelImpl ch = id.channel;
        end();
        if (awaitAcks && ch != null && id.mode == CmIdImpl.Mode.CHANNEL) {
            ch.awaitAcks(id);
        }
    }

    private void end() {
        // Under the handler lock: a delivery in progress ends before the id is marked, and none starts after.
        id.delivery.lock();
        try {
            synchronized (id) {
                if (destroyed) {
                    return;
                }
                destroyed = true;
            }
        } finally {
            id.delivery.unlock();
        }
        CmState was = id.state();
        id.state(CmState.DESTROYING);
        if (id.foreign.active()) {
            id.requests.destroyUntaken();
            if (id.requests.outstanding()) {
                id.requests.rejectQuietly(); // a request nobody answered is the consumer's reject
            }
            id.foreign.close();
            detach();
            return;
        }
        id.multicast.leaveAll();
        id.requests.destroyUntaken();
        if (was == CmState.LISTEN) {
            synchronized (id) {
                id.requests.stop();
            }
        }
        if (id.requests.outstanding()) {
            id.requests.rejectQuietly();
        }
        CmBackend b = id.backend();
        if (b != null) {
            try {
                if (was == CmState.CONNECT && id.accepting.accepted()) {
                    id.modifyQpErr();
                }
                b.destroy(id);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, id.tag() + " backend cleanup failed: " + e);
            }
        }
        id.addressing.release();
        detach();
    }

    /** Leaves the connection manager's live ids and the event channel. */
    private void detach() {
        id.core.unregister(id);
        ChannelImpl ch = id.channel;
        if (ch != null) {
            ch.detach(id);
        }
    }
}
