package io.jrdma.internal.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmState;
import io.jrdma.cm.RejectReason;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Listening and the requests it brings ({@code rdma_listen}, cma.c's {@code cma_listen_on_all} and the
 * backlog ucma keeps): on a listener, the backlog, the devices it listens on and a synchronous
 * listener's queue for {@code getRequest}; on the id of a request, whether the request still holds a
 * place in its listener's backlog (until it is accepted, rejected or the id destroyed).
 */
final class CmListen {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");
    /** The backlog {@code listen(0)} means (Linux: iwcm and ucma use their own defaults). */
    static final int DEFAULT_BACKLOG = 256;

    private final CmIdImpl id;

    // ---- listener side
    private int backlog;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger backlogRejects = new AtomicInteger();
    /** The devices the listener listens on (guarded by the id's lock). */
    private final List<DeviceImpl> devices = new ArrayList<>();
    /** A synchronous listener's requests for getRequest. */
    private final LinkedBlockingQueue<CmIdImpl> syncRequests = new LinkedBlockingQueue<>();
    /** A synchronous listener's PD and QP attributes for the QPs of its requests (rdma_create_ep). */
    private volatile ProtectionDomain endpointPd;
    private volatile QpInitAttr endpointQpAttr;

    // ---- request side
    /** The request holds a place in the listener's backlog and has not been answered. */
    private volatile boolean outstanding;
    /** A channel or synchronous request was retrieved: it may be accepted or rejected now. */
    private volatile boolean retrieved;

    CmListen(CmIdImpl id) {
        this.id = id;
    }

    int backlog() {
        return backlog;
    }

    int backlogRejects() {
        return backlogRejects.get();
    }

    boolean outstanding() {
        return outstanding;
    }

    boolean retrieved() {
        return retrieved;
    }

    void retrieved(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            retrieved = true;
        }
    }

    void listen(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("backlog must not be negative: " + n);
        }
        synchronized (id) {
            id.checkAlive();
            if (id.state() == CmState.IDLE) {
                // rdma_listen on an idle id binds the IPv4 wildcard (AF_INET, as Linux does).
                id.bind(new InetSocketAddress(Ip.wildcard(false), 0));
            }
            if (id.state() != CmState.ADDR_BOUND) {
                throw new IllegalStateException(id.tag() + " listen needs a bound id (state " + id.state()
                        + ", EINVAL)");
            }
            PortTable.instance().listen(id.portSpace(), id, id.addressing.port());
            this.backlog = n == 0 ? DEFAULT_BACKLOG : n;
            List<DeviceImpl> targets = targets();
            id.state(CmState.LISTEN);
            // As in connect: on iWARP the listener is a real host TCP port, which the host may hold when
            // the CM picked it (a client socket's ephemeral port, a TIME_WAIT); the CM then picks another.
            int[] tried = new int[CmIdImpl.MAX_EPHEMERAL_ATTEMPTS];
            int nTried = 0;
            try {
                while (true) {
                    try {
                        for (DeviceImpl d : targets) {
                            id.core.backend(d).listen(id, backlog);
                            devices.add(d);
                        }
                        break;
                    } catch (RuntimeException e) {
                        stop();
                        int next = e instanceof RdmaException re && re.errno() == Errno.EADDRINUSE
                                && nTried < tried.length - 1 ? id.addressing.rebindEphemeral() : -1;
                        if (next < 0) {
                            id.state(CmState.ADDR_BOUND);
                            throw e;
                        }
                        tried[nTried++] = next;
                        PortTable.instance().listen(id.portSpace(), id, id.addressing.port());
                    }
                }
            } finally {
                for (int i = 0; i < nTried; i++) {
                    PortTable.instance().release(id.portSpace(), id, tried[i]);
                }
            }
        }
    }

    /**
     * The devices a listener listens on: its own, or ({@code cma_listen_on_all}) every device that offers
     * the port space, whatever addresses it has; AFONLY only filters the requests it takes
     * ({@code cma_match_private_data}, in the backend's listener match).
     */
    private List<DeviceImpl> targets() {
        List<DeviceImpl> targets = new ArrayList<>();
        if (id.deviceImpl() != null) {
            targets.add(id.deviceImpl());
            return targets;
        }
        for (DeviceImpl d : id.core.devices()) {
            if (id.core.backend(d).supports(id.portSpace())) {
                targets.add(d);
            }
        }
        if (targets.isEmpty()) {
            throw new RdmaException(Errno.ENODEV, id.tag() + " no RDMA device offers the " + id.portSpace()
                    + " port space");
        }
        return targets;
    }

    /** Stops listening on every device (under the id's lock). */
    void stop() {
        for (DeviceImpl d : devices) {
            id.core.backend(d).stopListen(id);
        }
        devices.clear();
    }

    /** Stops listening on {@code d} only; false if the listener did not listen there. */
    boolean stop(DeviceImpl d) {
        synchronized (id) {
            if (id.isDestroyed() || !devices.remove(d)) {
                return false;
            }
        }
        id.core.backend(d).stopListen(id);
        return true;
    }

    /** See {@link CmIdImpl#newRequestId}. */
    CmIdImpl newRequest(DeviceImpl dev, InetSocketAddress localAddr, InetSocketAddress remoteAddr, QpType type) {
        if (id.isDestroyed() || id.state() != CmState.LISTEN) {
            return null;
        }
        // Made before it is counted: the constructor refuses a QP type the port space does not carry.
        CmIdImpl child = new CmIdImpl(id.core, id.delivery.handler(), id.mode, null, id.context(), id.portSpace(),
                type, id);
        if (pending.incrementAndGet() > backlog) {
            pending.decrementAndGet();
            backlogRejects.incrementAndGet();
            dev.counters().shared().inc(Counter.CM_BACKLOG_REJECTS);
            id.core.events().backlogOverflow(id);
            return null;
        }
        try {
            child.channel = id.mode == CmIdImpl.Mode.SYNC ? new ChannelImpl(id.core) : id.channel;
            child.attachDevice(dev);
            child.addresses(localAddr, remoteAddr);
            child.options.inheritTos(id.options.tos());
            child.state(CmState.CONNECT);
            id.core.register(child);
            if (child.channel != null) {
                child.channel.attach(child);
            }
        } catch (RuntimeException e) {
            id.core.unregister(child);
            pending.decrementAndGet();
            throw e;
        }
        child.requests.outstanding = true;
        return child;
    }

    /**
     * A listener of a provider's connection manager: the backlog its requests are held to here. The provider's
     * CM hands each request over as it comes (the kernel's backlog counts requests not yet read, and the
     * provider reads them at once), so the requests waiting for an answer are bounded here, as core's own are.
     */
    void providerListen(int n) {
        backlog = n;
    }

    /**
     * A request of a provider's connection manager for this listener: whether it gets a place in the backlog;
     * when it is full the request is counted as a backlog reject (the caller rejects it).
     */
    boolean admitProviderRequest() {
        if (pending.incrementAndGet() > backlog) {
            pending.decrementAndGet();
            backlogRejects.incrementAndGet();
            id.core.events().backlogOverflow(id);
            return false;
        }
        return true;
    }

    /** Gives back a place {@link #admitProviderRequest} gave to a request whose id could not be made. */
    void releaseProviderRequest() {
        pending.decrementAndGet();
    }

    /**
     * The id of a request of a provider's connection manager, admitted by its listener
     * ({@link #admitProviderRequest}): it holds that place until it is answered, as one of core's own does.
     */
    void providerRequest() {
        synchronized (id) {
            outstanding = true;
        }
    }

    /** The request was answered (or its id destroyed): its place in the listener's backlog is free. */
    void answered() {
        boolean was;
        synchronized (id) {
            was = outstanding;
            outstanding = false;
        }
        if (was && id.listener != null) {
            id.listener.requests.pending.decrementAndGet();
        }
    }

    /** Rejects the request if it is still unanswered; failures are logged, not thrown. */
    void rejectQuietly() {
        try {
            if (outstanding) {
                answered();
                if (id.foreign.active()) {
                    id.foreign.reject(new byte[0], false);
                } else {
                    id.backend().reject(id, null, RejectReason.CONSUMER_DEFINED.value());
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, id.tag() + " reject failed: " + e);
        }
    }

    /** Queues a synchronous request for getRequest; false when the listener is gone. */
    boolean queueForGetRequest(CmIdImpl child) {
        synchronized (id) {
            if (id.isDestroyed()) {
                return false;
            }
            syncRequests.add(child);
            return true;
        }
    }

    CmId getRequest(Duration timeout) throws InterruptedException {
        if (id.mode != CmIdImpl.Mode.SYNC) {
            throw new IllegalStateException(id.tag() + " getRequest is for synchronous ids (created with createEp)");
        }
        if (id.state() != CmState.LISTEN) {
            throw new IllegalStateException(id.tag() + " getRequest needs a listening id (state " + id.state() + ")");
        }
        CmIdImpl req = timeout == null ? syncRequests.take() : syncRequests.poll(timeout.toNanos(),
                TimeUnit.NANOSECONDS);
        if (req != null) {
            req.requests.retrieved = true;
            ProtectionDomain pd = endpointPd;
            if (pd != null && req.qpImpl() == null) {
                // librdmacm's rdma_get_request creates the QP the passive endpoint was made with.
                try {
                    req.createQp(pd, endpointQpAttr);
                } catch (RuntimeException e) {
                    req.destroy();
                    throw e;
                }
            }
        }
        return req;
    }

    void endpointQp(ProtectionDomain pd, QpInitAttr attr) {
        if (id.mode != CmIdImpl.Mode.SYNC) {
            throw new IllegalStateException(id.tag() + " only synchronous endpoints create QPs for their requests");
        }
        this.endpointPd = pd;
        this.endpointQpAttr = attr;
    }

    /**
     * The listener is being destroyed: a synchronous listener's requests that getRequest never returned
     * are rejected, like the unretrieved CONNECT_REQUEST events of a channel listener
     * ({@code ucma_cleanup_ctx_events}).
     */
    void destroyUntaken() {
        List<CmIdImpl> untaken = new ArrayList<>();
        syncRequests.drainTo(untaken);
        for (CmIdImpl r : untaken) {
            r.destroy();
        }
    }
}
