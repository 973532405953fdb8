package io.jrdma.internal.cm.ib;

import io.jrdma.internal.cm.SerialExecutor;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.TimerQueue;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.Unpredictable;
import io.jrdma.cm.RejectReason;
import io.jrdma.spi.IbCmProvider;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.spi.ibcm.Drep;
import io.jrdma.spi.ibcm.Dreq;
import io.jrdma.spi.ibcm.Mra;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.Rtu;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The IB connection manager of one device (Linux {@code drivers/infiniband/core/cm.c}, IBTA Vol 1
 * ch. 12): the REQ/REP/RTU, REJ, MRA, DREQ/DREP and SIDR exchanges, with retransmission on the CM
 * response timeouts, duplicate detection, stale-connection rejects and timewait. Behaviour ported
 * from cm.c, not code.
 *
 * <p>One lock, {@link #lock}, guards all of the device's IB CM state: its ids, the tables that find
 * them, and its timers. Messages arrive from the device's {@link IbCmProvider} on any thread and are
 * processed on this CM's executor; the response, retransmission and timewait timers sit in a
 * {@link TimerQueue} that the same executor thread fires between messages; API calls come from
 * rdma_cm threads. All three take the lock, and a timer armed from an API thread wakes the executor.
 * One lock rather than a per-id executor because a message is matched against the tables of every
 * id (duplicates, stale connections, listeners) before it belongs to one. Handlers are called with
 * the lock held and must not block (rdma_cm's only queue events).
 */
public final class IbCm implements IbCmProvider.Receiver {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");
    /** {@code CMA_MAX_CM_RETRIES}. */
    public static final int MAX_CM_RETRIES = 15;
    /**
     * {@code CMA_CM_RESPONSE_TIMEOUT} (IB time exponent: 4.096 µs × 2^20 ≈ 4.3 s); system property
     * {@code jrdma.cm.responseTimeout}.
     */
    public static final int CM_RESPONSE_TIMEOUT = Integer.getInteger("jrdma.cm.responseTimeout", 20);
    /** The CM response timeout this device's IB CM uses (guarded: volatile; see {@link #cmResponseTimeout(int)}). */
    private volatile int cmResponseTimeout = CM_RESPONSE_TIMEOUT;
    /** MRA service timeout rdma_cm sends ({@code CMA_CM_MRA_SETTING}: 24 ≈ 68.7 s). */
    public static final int MRA_SERVICE_TIMEOUT = 24;
    /**
     * The longest IB time this CM takes from a peer for its own timers — the REQ's CM response timeout and
     * packet life time (the REP's retransmissions, timewait), an MRA's service timeout: 24 ≈ 68.7 s, the
     * longest rdma_cm announces ({@code CMA_CM_MRA_SETTING}). The wire allows 31 (2.4 hours per try),
     * which would let a REQ followed by silence hold its connection state for days; Linux takes the value as
     * it comes.
     */
    public static final int MAX_PEER_TIME = 24;
    private static final Map<DeviceImpl, IbCm> INSTANCES = new ConcurrentHashMap<>();

    final Object lock = new Object();
    private final DeviceImpl device;
    private final IbCmProvider port;
    /** The ids' timers: armed, cancelled and fired under {@link #lock} only. */
    private final TimerQueue timers = new TimerQueue(NanoClock.SYSTEM);
    private final SerialExecutor executor;
    private final Map<Integer, IbCmId> localIds = new HashMap<>();
    private final Map<Long, IbCmId> listeners = new HashMap<>();
    /** Connections by (remote GID, remote comm id): duplicate REQs find their id here. */
    private final Map<RemoteKey, IbCmId> remoteIds = new HashMap<>();
    /** Connections by (remote CA GUID, remote QPN): stale-connection detection. */
    private final Map<QpKey, IbCmId> remoteQps = new HashMap<>();
    private final Map<SidrKey, IbCmId> sidrRequests = new HashMap<>();
    private final int tidHigh = Unpredictable.nextInt();
    private final IbCmCounters counters = new IbCmCounters();

    private record RemoteKey(Gid gid, int remoteId) {
    }

    private record QpKey(long caGuid, int qpn) {
    }

    private record SidrKey(Gid gid, int requestId) {
    }

    private IbCm(DeviceImpl device, IbCmProvider port) {
        this.device = device;
        this.port = port;
        this.executor = new SerialExecutor("jrdma-ibcm-" + device.name(), new SerialExecutor.Timers() {
            @Override
            public long nanosToNext() {
                return timers.nanosToNext();
            }

            @Override
            public void fireDue() {
                synchronized (lock) {
                    timers.poll();
                }
            }
        });
        port.start(this);
    }

    /** The IB CM of an IB-transport device. */
    public static IbCm of(DeviceImpl device) {
        return INSTANCES.computeIfAbsent(device, d -> {
            if (!(d.providerDevice().cmTransport() instanceof IbCmProvider p)) {
                throw new IllegalArgumentException(d.name() + " has no IB CM");
            }
            return new IbCm(d, p);
        });
    }

    /** The device. */
    public DeviceImpl device() {
        return device;
    }

    /** The datagram path. */
    public IbCmProvider port() {
        return port;
    }

    /** Message counters (cm_tx_msgs, cm_rx_duplicates ...). */
    public IbCmCounters counters() {
        return counters;
    }

    /**
     * The IB CM ids alive on this device plus the connections it still remembers (in timewait or for
     * duplicate and stale-connection detection): what a leak check compares before and after.
     */
    public int stateCount() {
        synchronized (lock) {
            return localIds.size() + remoteIds.size() + remoteQps.size() + sidrRequests.size();
        }
    }

    /** {@code cm_convert_to_ms}: an IB time exponent to milliseconds (an approximation Linux uses). */
    public static long toMs(int ibTime) {
        return 1L << Math.max(ibTime - 8, 0);
    }

    // ------------------------------------------------------------------------------------------ API

    /**
     * {@code ib_create_cm_id}: allocates the local communication id, a random one not in use (cm.c: its
     * index XOR a random operand), so that no host can tell the next connection's id from its own.
     */
    public IbCmId createId(IbCmHandler handler, Object context) {
        synchronized (lock) {
            IbCmId id = new IbCmId(this, handler, context);
            int lid;
            do {
                lid = Unpredictable.nextInt();
            } while (lid == 0 || localIds.containsKey(lid));
            id.localId = lid;
            localIds.put(lid, id);
            return id;
        }
    }

    /** {@code ib_cm_listen}: REQs and SIDR_REQs for {@code serviceId} go to {@code id}. */
    public void listen(IbCmId id, long serviceId) {
        synchronized (lock) {
            if (id.state != IbCmState.IDLE) {
                throw new IllegalStateException("listen needs an idle IB CM id (" + id.state + ")");
            }
            if (listeners.containsKey(serviceId)) {
                throw new io.jrdma.verbs.RdmaException(Errno.EBUSY, "service ID 0x" + Long.toHexString(serviceId)
                        + " already has a listener on " + device.name());
            }
            id.serviceId = serviceId;
            id.state = IbCmState.LISTEN;
            listeners.put(serviceId, id);
        }
    }

    private long newTid(IbCmId id) {
        return (long) tidHigh << 32 | (id.localId & 0xFFFFFFFFL);
    }

    /**
     * The CM response timeout (IB time exponent) the REQs and SIDR_REQs of this device announce and wait
     * for before each retransmission: {@link #CM_RESPONSE_TIMEOUT} unless a test shortened it.
     *
     * @return the IB time exponent
     */
    public int cmResponseTimeout() {
        return cmResponseTimeout;
    }

    /**
     * Sets the CM response timeout of this device's IB CM: a test hook, so that running out of the
     * {@link #MAX_CM_RETRIES} retransmissions takes milliseconds instead of a minute. Linux has it as the
     * compile-time {@code CMA_CM_RESPONSE_TIMEOUT}.
     *
     * @param exponent IB time exponent, 0..31
     */
    public void cmResponseTimeout(int exponent) {
        if (exponent < 0 || exponent > 31) {
            throw new IllegalArgumentException("the CM response timeout is a 5-bit IB time: " + exponent);
        }
        this.cmResponseTimeout = exponent;
    }

    /** {@code ib_send_cm_req}. */
    public void sendReq(IbCmId id, Gid destination, Req req, int packetLifeTime) {
        synchronized (lock) {
            checkState(id, "send a REQ", IbCmState.IDLE);
            if (req.localCommId() != id.localId) {
                throw new IllegalArgumentException("REQ local comm id does not match the IB CM id");
            }
            id.remoteGid = destination;
            id.serviceId = req.serviceId();
            id.localQpn = req.localQpn();
            id.packetLifeTime = packetLifeTime;
            id.maxCmRetries = req.maxCmRetries();
            id.tid = newTid(id);
            id.state = IbCmState.REQ_SENT;
            long timeout = 2 * toMs(packetLifeTime) + toMs(req.remoteCmResponseTimeout());
            sendWithRetry(id, req, id.tid, timeout, req.maxCmRetries());
        }
    }

    /**
     * {@code ib_send_cm_rep}.
     *
     * @return false if the peer ended the request first (its REJ, say, after it gave up): nothing is sent
     */
    public boolean sendRep(IbCmId id, Rep rep) {
        synchronized (lock) {
            if (id.state == IbCmState.IDLE && !id.destroyed) {
                return false;
            }
            checkState(id, "send a REP", IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT);
            id.localQpn = rep.localQpn();
            id.state = IbCmState.REP_SENT;
            id.lastAnswer = rep;
            id.lastAnswerTid = id.tid;
            sendWithRetry(id, rep, id.tid, id.timeoutMs, id.maxCmRetries);
            return true;
        }
    }

    /**
     * {@code ib_send_cm_rtu}.
     *
     * @return false if the peer ended the exchange first (its REJ after its REP timed out): nothing is sent
     */
    public boolean sendRtu(IbCmId id, Rtu rtu) {
        synchronized (lock) {
            if (id.state == IbCmState.IDLE && !id.destroyed) {
                return false;
            }
            checkState(id, "send an RTU", IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT);
            id.state = IbCmState.ESTABLISHED;
            id.lastAnswer = rtu;
            id.lastAnswerTid = id.tid;
            send(id.remoteGid, id.tid, rtu);
            return true;
        }
    }

    /** {@code ib_cm_notify(IB_EVENT_COMM_EST)}: traffic arrived before the RTU. */
    public void establish(IbCmId id) {
        synchronized (lock) {
            if (id.state == IbCmState.REP_SENT || id.state == IbCmState.MRA_REP_RCVD) {
                cancelTimer(id);
                id.state = IbCmState.ESTABLISHED;
                deliver(id, new IbCmEvent(IbCmEvent.Type.USER_ESTABLISHED, null, null, 0));
            }
        }
    }

    /**
     * {@code ib_send_cm_rej} if the id still holds a request or reply, checked and sent under the CM's
     * lock (the peer's REJ, RTU or a timeout may end the exchange between a caller's look and the send).
     *
     * @return whether a REJ was sent
     */
    public boolean rejectIfPending(IbCmId id, int reason, byte[] privateData) {
        synchronized (lock) {
            switch (id.state) {
                case REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT, REP_SENT, MRA_REP_RCVD -> {
                    sendRej(id, reason, privateData);
                    return true;
                }
                default -> {
                    return false;
                }
            }
        }
    }

    /** {@code ib_send_cm_rej} on a request or reply the id holds. */
    public void sendRej(IbCmId id, int reason, byte[] privateData) {
        synchronized (lock) {
            int rejected = switch (id.state) {
                case REQ_RCVD, MRA_REQ_SENT -> Rej.REJECTED_REQ;
                case REP_RCVD, MRA_REP_SENT -> Rej.REJECTED_REP;
                case REP_SENT, MRA_REP_RCVD -> Rej.REJECTED_OTHER;
                default -> throw new IllegalStateException("no request or reply to reject (" + id.state + ")");
            };
            cancelTimer(id);
            Rej rej = new Rej(id.localId, id.remoteId, rejected, reason, Octets.empty(),
                    Octets.of(privateData == null ? new byte[0] : privateData));
            send(id.remoteGid, id.tid, rej);
            toIdle(id);
        }
    }

    /** {@code ib_send_cm_mra}: tells the peer an answer is coming later. */
    public void sendMra(IbCmId id, int serviceTimeout) {
        synchronized (lock) {
            int what;
            if (id.state == IbCmState.REQ_RCVD || id.state == IbCmState.MRA_REQ_SENT) {
                what = Mra.MRAED_REQ;
                id.state = IbCmState.MRA_REQ_SENT;
            } else if (id.state == IbCmState.REP_RCVD || id.state == IbCmState.MRA_REP_SENT) {
                what = Mra.MRAED_REP;
                id.state = IbCmState.MRA_REP_SENT;
            } else {
                throw new IllegalStateException("nothing to MRA (" + id.state + ")");
            }
            Mra mra = new Mra(id.localId, id.remoteId, what, serviceTimeout, Octets.empty());
            id.lastAnswer = mra;
            id.lastAnswerTid = id.tid;
            send(id.remoteGid, id.tid, mra);
        }
    }

    /** {@code ib_send_cm_dreq}. */
    public void sendDreq(IbCmId id) {
        synchronized (lock) {
            checkState(id, "send a DREQ", IbCmState.ESTABLISHED);
            id.state = IbCmState.DREQ_SENT;
            Dreq dreq = new Dreq(id.localId, id.remoteId, id.remoteQpn, Octets.empty());
            long tid = newTid(id) ^ 0x1_0000_0000L;
            sendWithRetry(id, dreq, tid, id.timeoutMs, id.maxCmRetries);
        }
    }

    /**
     * rdma_disconnect's part on the IB CM, in one step under the CM's lock: a DREQ for an established
     * connection (establishing first a passive one still waiting for its RTU), or the DREP when the
     * peer's DREQ came first — also when it crosses this call (cma.c: ib_send_cm_dreq, and
     * ib_send_cm_drep if that fails). Nothing for a connection already disconnecting.
     */
    public void disconnect(IbCmId id) {
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
            switch (id.state) {
                case ESTABLISHED -> sendDreq(id);
                case REP_SENT, MRA_REP_RCVD -> {
                    establish(id);
                    sendDreq(id);
                }
                case DREQ_RCVD -> sendDrep(id);
                default -> {
                    // DREQ sent, timewait or idle: nothing to send
                }
            }
        }
    }

    /** {@code ib_send_cm_drep}. */
    public void sendDrep(IbCmId id) {
        synchronized (lock) {
            checkState(id, "send a DREP", IbCmState.DREQ_RCVD);
            Drep drep = new Drep(id.localId, id.remoteId, Octets.empty());
            send(id.remoteGid, id.lastAnswerTid, drep);
            id.lastAnswer = drep;
            enterTimewait(id);
        }
    }

    /** {@code ib_send_cm_sidr_req}. */
    public void sendSidrReq(IbCmId id, Gid destination, SidrReq req, long timeoutMs, int retries) {
        synchronized (lock) {
            checkState(id, "send a SIDR_REQ", IbCmState.IDLE);
            if (req.requestId() != id.localId) {
                throw new IllegalArgumentException("SIDR_REQ request id does not match the IB CM id");
            }
            id.remoteGid = destination;
            id.serviceId = req.serviceId();
            id.tid = newTid(id);
            id.state = IbCmState.SIDR_REQ_SENT;
            sendWithRetry(id, req, id.tid, timeoutMs, retries);
        }
    }

    /** {@code ib_send_cm_sidr_rep}. */
    public void sendSidrRep(IbCmId id, SidrRep rep) {
        synchronized (lock) {
            checkState(id, "send a SIDR_REP", IbCmState.SIDR_REQ_RCVD);
            send(id.remoteGid, id.tid, rep);
            sidrRequests.remove(new SidrKey(node(id.remoteGid), id.remoteId));
            id.state = IbCmState.IDLE;
        }
    }

    /** The remote communication id of a connection (for building REP/RTU/REJ). */
    public int remoteId(IbCmId id) {
        synchronized (lock) {
            return id.remoteId;
        }
    }

    /**
     * Destroys {@code id} if it still waits for the answer to its REQ or SIDR_REQ, atomically with the
     * processing of that answer: either the answer came first (false; its event stands) or the id is
     * destroyed and a late answer finds nothing (true). rdma_cm's connect timeout uses it so that
     * UNREACHABLE never follows CONNECT_RESPONSE or ESTABLISHED.
     *
     * @param id the id
     * @return whether it was waiting and is now destroyed
     */
    public boolean destroyIfWaiting(IbCmId id) {
        synchronized (lock) {
            IbCmState s = id.state;
            if (id.destroyed || (s != IbCmState.REQ_SENT && s != IbCmState.MRA_REQ_RCVD
                    && s != IbCmState.SIDR_REQ_SENT)) {
                return false;
            }
            destroy(id);
            return true;
        }
    }

    /**
     * {@code ib_destroy_cm_id}: ends whatever the id was doing the way cm.c does (REJ for a pending
     * request or reply, DREQ for a connection, DREP for a received DREQ, SIDR_REP reject) and forgets it.
     */
    public void destroy(IbCmId id) {
        synchronized (lock) {
            if (id.destroyed) {
                return;
            }
            switch (id.state) {
                case LISTEN -> listeners.remove(id.serviceId, id);
                case REQ_SENT, MRA_REQ_RCVD -> {
                    cancelTimer(id);
                    send(id.remoteGid, id.tid, new Rej(id.localId, id.remoteId, Rej.REJECTED_REQ,
                            RejectReason.TIMEOUT.value(), guidAri(), Octets.empty()));
                }
                case REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT, REP_SENT, MRA_REP_RCVD -> sendRej(id,
                        RejectReason.CONSUMER_DEFINED.value(), null);
                case ESTABLISHED -> {
                    send(id.remoteGid, newTid(id) ^ 0x1_0000_0000L, new Dreq(id.localId, id.remoteId, id.remoteQpn,
                            Octets.empty()));
                    enterTimewait(id);
                }
                case DREQ_SENT -> enterTimewait(id);
                case DREQ_RCVD -> sendDrep(id);
                case SIDR_REQ_RCVD -> sendSidrRep(id, new SidrRep(id.remoteId, SidrRep.STATUS_REJECT, Octets.empty(),
                        0, 0, id.serviceId, 0, 0, Octets.empty()));
                default -> {
                    // IDLE, TIMEWAIT, SIDR_REQ_SENT: nothing to tell the peer
                }
            }
            id.destroyed = true;
            localIds.remove(id.localId);
            if (id.state != IbCmState.TIMEWAIT) {
                cancelTimer(id);
                forgetRemote(id);
            }
            // In TIMEWAIT the timer stays armed and ends the timewait (cm_destroy_id leaves a connection
            // in timewait to cm_timewait_handler); its remote entries went when it entered timewait.
        }
    }

    // ------------------------------------------------------------------------------------------ sending

    /** The ARI of a REJ(timeout): this node's CA GUID, big-endian (cm.c sends the device's node GUID). */
    private Octets guidAri() {
        long guid = device.nodeGuid();
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (guid >>> (56 - 8 * i));
        }
        return Octets.of(b);
    }

    private void checkState(IbCmId id, String what, IbCmState... allowed) {
        if (id.destroyed) {
            throw new IllegalStateException("cannot " + what + ": the IB CM id is destroyed");
        }
        for (IbCmState s : allowed) {
            if (id.state == s) {
                return;
            }
        }
        throw new IllegalStateException("cannot " + what + " in IB CM state " + id.state);
    }

    private void send(Gid to, long tid, CmMessage msg) {
        counters.sent(msg);
        try {
            port.send(to, tid, msg);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "[ibcm " + device.name() + "] send failed: " + e);
        }
    }

    private void sendWithRetry(IbCmId id, CmMessage msg, long tid, long timeoutMs, int retries) {
        id.pending = msg;
        id.pendingTid = tid;
        id.timeoutMs = Math.max(1, timeoutMs);
        id.retriesLeft = retries;
        send(id.remoteGid, tid, msg);
        armTimer(id, id.timeoutMs);
    }

    /** (Re)arms the retransmission timer of the message the id waits an answer for. */
    private void armTimer(IbCmId id, long ms) {
        CmMessage expected = id.pending;
        cancelTimer(id); // clears pending: put it back, the timer retransmits it
        id.pending = expected;
        armFor(id, ms);
    }

    private void armFor(IbCmId id, long ms) {
        timers.schedule(id.timer, TimeUnit.MILLISECONDS.toNanos(ms));
        executor.wake();
    }

    private void cancelTimer(IbCmId id) {
        timers.cancel(id.timer);
        id.pending = null;
    }

    /** An id's timer fired (on the executor, under the lock): the timewait ended or an answer is late. */
    void timerExpired(IbCmId id) {
        if (id.state == IbCmState.TIMEWAIT) {
            timewaitExpired(id);
        } else {
            onTimeout(id, id.pending);
        }
    }

    /** The timers armed now (response, retransmission and timewait): what a leak check compares. */
    public int armedTimers() {
        synchronized (lock) {
            return timers.size();
        }
    }

    private void onTimeout(IbCmId id, CmMessage expected) {
        synchronized (lock) {
            if (id.destroyed || id.pending != expected || expected == null) {
                return;
            }
            if (id.retriesLeft > 0) {
                id.retriesLeft--;
                counters.retry(expected);
                send(id.remoteGid, id.pendingTid, expected);
                armTimer(id, id.timeoutMs);
                return;
            }
            id.pending = null;
            IbCmEvent.Type type;
            switch (id.state) {
                case REQ_SENT, MRA_REQ_RCVD -> {
                    type = IbCmEvent.Type.REQ_ERROR;
                    toIdle(id);
                }
                case REP_SENT, MRA_REP_RCVD -> {
                    type = IbCmEvent.Type.REP_ERROR;
                    // cm.c: a REP that was never answered is rejected with reason TIMEOUT.
                    send(id.remoteGid, id.tid, new Rej(id.localId, id.remoteId, Rej.REJECTED_OTHER,
                            RejectReason.TIMEOUT.value(), guidAri(), Octets.empty()));
                    toIdle(id);
                }
                case DREQ_SENT -> {
                    type = IbCmEvent.Type.DREQ_ERROR;
                    enterTimewait(id);
                }
                case SIDR_REQ_SENT -> {
                    type = IbCmEvent.Type.SIDR_REQ_ERROR;
                    id.state = IbCmState.IDLE;
                }
                default -> {
                    return;
                }
            }
            deliver(id, new IbCmEvent(type, null, null, Errno.ETIMEDOUT.status()));
        }
    }

    private void toIdle(IbCmId id) {
        cancelTimer(id);
        forgetRemote(id);
        id.state = IbCmState.IDLE;
    }

    private void forgetRemote(IbCmId id) {
        if (id.remoteGid != null) {
            remoteIds.remove(new RemoteKey(node(id.remoteGid), id.remoteId), id);
        }
        if (id.remoteCaGuid != 0) {
            remoteQps.remove(new QpKey(id.remoteCaGuid, id.remoteQpn), id);
        }
    }

    private void enterTimewait(IbCmId id) {
        cancelTimer(id);
        // cm_enter_timewait → cm_cleanup_timewait: the connection's remote comm id and (CA GUID, QPN) are
        // forgotten now, not when timewait ends, so the same peer may connect again at once (with a QP of
        // the same number: a client process that starts over) instead of being rejected as stale.
        forgetRemote(id);
        id.state = IbCmState.TIMEWAIT;
        // cm_enter_timewait: wait out stray packets for about the path's packet life time.
        long ms = toMs(id.packetLifeTime + 1);
        armFor(id, ms);
    }

    private void timewaitExpired(IbCmId id) {
        synchronized (lock) {
            if (id.state != IbCmState.TIMEWAIT) {
                return;
            }
            forgetRemote(id);
            id.state = IbCmState.IDLE;
            if (!id.destroyed) {
                deliver(id, new IbCmEvent(IbCmEvent.Type.TIMEWAIT_EXIT, null, null, 0));
            }
        }
    }

    private void deliver(IbCmId id, IbCmEvent e) {
        if (id.destroyed) {
            return;
        }
        try {
            id.handler.onEvent(id, e);
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, "[ibcm " + device.name() + "] handler threw on " + e.type(), ex);
        }
    }

    /**
     * Hands a new request's id to its listener. Whatever the listener's handler does, the request ends
     * answered: if the handler throws, the id is destroyed here, which rejects the request (REJ, or a
     * SIDR_REP with status REJECT) and releases every table entry made for it (cm.c: a handler that returns
     * an error has {@code cm_destroy_id} reject it).
     */
    private void deliverRequest(IbCmId listener, IbCmId id, IbCmEvent e) {
        try {
            listener.handler.onEvent(listener, e);
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, "[ibcm " + device.name() + "] listener threw on " + e.type()
                    + "; the request is rejected", ex);
            destroy(id);
        }
    }

    // ------------------------------------------------------------------------------------------ receiving

    @Override
    public void receive(Gid source, long tid, CmMessage message) {
        Objects.requireNonNull(source);
        executor.execute(() -> {
            synchronized (lock) {
                counters.received(message);
                switch (message) {
                    case Req m -> onReq(source, tid, m);
                    case Rep m -> onRep(source, m);
                    case Rtu m -> onRtu(source, m);
                    case Rej m -> onRej(source, m);
                    case Mra m -> onMra(source, m);
                    case Dreq m -> onDreq(source, tid, m);
                    case Drep m -> onDrep(source, m);
                    case SidrReq m -> onSidrReq(source, tid, m);
                    case SidrRep m -> onSidrRep(source, m);
                }
            }
        });
    }

    /** The node {@code gid} belongs to, as this device's datagram path sees it ({@link IbCmProvider#node}). */
    private Gid node(Gid gid) {
        return port.node(gid);
    }

    /** Whether {@code source} is the node the id's connection or request is with. */
    private boolean fromPeer(IbCmId id, Gid source) {
        return id.remoteGid != null && node(id.remoteGid).equals(node(source));
    }

    /**
     * {@code cm_acquire_id}: the id with local comm id {@code localId} whose remote comm id is exactly
     * {@code remoteId} (0 while the peer's is not known yet: before the REP), provided {@code source} is the
     * peer it is with. Linux matches the id pair only; the sender is checked too so that a third host that
     * learned (or guessed) both ids still cannot end or answer somebody else's connection. A miss is
     * counted ({@link IbCmCounters.Group#RX_DROPPED}).
     */
    private IbCmId acquire(int localId, int remoteId, Gid source, CmMessage m) {
        IbCmId id = localIds.get(localId);
        if (id == null || id.destroyed || id.remoteId != remoteId || !fromPeer(id, source)) {
            counters.dropped(m);
            return null;
        }
        return id;
    }

    private void issueRej(Gid to, long tid, int remoteCommId, int rejected, RejectReason reason) {
        send(to, tid, new Rej(0, remoteCommId, rejected, reason.value(), Octets.empty(), Octets.empty()));
    }

    /** A peer's IB time for one of this CM's own timers, capped at {@link #MAX_PEER_TIME}. */
    private static int peerTime(int ibTime) {
        return Math.min(ibTime, MAX_PEER_TIME);
    }

    private void onReq(Gid source, long tid, Req req) {
        IbCmId dup = remoteIds.get(new RemoteKey(node(source), req.localCommId()));
        if (dup != null) {
            counters.duplicate(req);
            switch (dup.state) {
                case REQ_RCVD, MRA_REQ_SENT -> sendMra(dup, MRA_SERVICE_TIMEOUT);
                case REP_SENT, MRA_REP_RCVD -> send(dup.remoteGid, dup.tid, dup.lastAnswer);
                default -> {
                    // established or later: the REQ is old news
                }
            }
            return;
        }
        IbCmId stale = remoteQps.get(new QpKey(req.localCaGuid(), req.localQpn()));
        if (stale != null) {
            // cm_match_req: a REQ naming a (CA GUID, QPN) that a live connection has is rejected as stale,
            // and that connection is ended: its peer evidently lost it. Only the peer itself may claim so.
            issueRej(source, tid, req.localCommId(), Rej.REJECTED_REQ, RejectReason.STALE_CONN);
            if (fromPeer(stale, source) && stale.state == IbCmState.ESTABLISHED) {
                sendDreq(stale);
            }
            return;
        }
        IbCmId listener = listeners.get(req.serviceId());
        if (listener == null) {
            issueRej(source, tid, req.localCommId(), Rej.REJECTED_REQ, RejectReason.INVALID_SERVICE_ID);
            return;
        }
        IbCmId id = createId(listener.handler, listener.context);
        id.state = IbCmState.REQ_RCVD;
        id.remoteId = req.localCommId();
        id.remoteGid = source;
        id.tid = tid;
        id.serviceId = req.serviceId();
        id.remoteQpn = req.localQpn();
        id.remoteCaGuid = req.localCaGuid();
        id.maxCmRetries = req.maxCmRetries();
        id.packetLifeTime = peerTime(Math.max(0, req.primaryPath().localAckTimeout() - 1));
        id.timeoutMs = 2 * toMs(id.packetLifeTime) + toMs(peerTime(req.localCmResponseTimeout()));
        remoteIds.put(new RemoteKey(node(source), id.remoteId), id);
        remoteQps.put(new QpKey(id.remoteCaGuid, id.remoteQpn), id);
        deliverRequest(listener, id, new IbCmEvent(IbCmEvent.Type.REQ_RECEIVED, req, id, 0));
    }

    private void onRep(Gid source, Rep rep) {
        IbCmId id = localIds.get(rep.remoteCommId());
        if (id != null && !id.destroyed && id.remoteId == rep.localCommId() && id.remoteId != 0
                && fromPeer(id, source)) {
            // cm_dup_rep_handler: the REP again (our RTU or MRA was lost)
            counters.duplicate(rep);
            if (id.state == IbCmState.ESTABLISHED && id.lastAnswer instanceof Rtu
                    || id.state == IbCmState.MRA_REP_SENT) {
                send(id.remoteGid, id.tid, id.lastAnswer);
            }
            return;
        }
        id = acquire(rep.remoteCommId(), 0, source, rep);
        if (id == null || (id.state != IbCmState.REQ_SENT && id.state != IbCmState.MRA_REQ_RCVD)) {
            issueRej(source, 0, rep.localCommId(), Rej.REJECTED_REP, RejectReason.INVALID_COMM_ID);
            return;
        }
        cancelTimer(id);
        id.remoteId = rep.localCommId();
        id.remoteQpn = rep.localQpn();
        id.remoteCaGuid = rep.localCaGuid();
        id.state = IbCmState.REP_RCVD;
        remoteIds.put(new RemoteKey(node(id.remoteGid), id.remoteId), id);
        remoteQps.put(new QpKey(id.remoteCaGuid, id.remoteQpn), id);
        deliver(id, new IbCmEvent(IbCmEvent.Type.REP_RECEIVED, rep, null, 0));
    }

    private void onRtu(Gid source, Rtu rtu) {
        IbCmId id = acquire(rtu.remoteCommId(), rtu.localCommId(), source, rtu);
        if (id == null) {
            return;
        }
        if (id.state == IbCmState.REP_SENT || id.state == IbCmState.MRA_REP_RCVD) {
            cancelTimer(id);
            id.state = IbCmState.ESTABLISHED;
            deliver(id, new IbCmEvent(IbCmEvent.Type.RTU_RECEIVED, rtu, null, 0));
        } else {
            counters.duplicate(rtu);
        }
    }

    /**
     * {@code cm_acquire_rejected_id}: a REJ(timeout) comes from a side that may have given up before it
     * learned our comm id, so it is found by the sender's id on the sender's node; a REJ of a REQ by our id
     * alone, since the peer's is not ours to know yet; any other by the exact pair.
     */
    private IbCmId rejected(Gid source, Rej rej) {
        if (rej.reason() == RejectReason.TIMEOUT.value()) {
            IbCmId id = remoteIds.get(new RemoteKey(node(source), rej.localCommId()));
            if (id == null || id.destroyed || !fromPeer(id, source)) {
                counters.dropped(rej);
                return null;
            }
            return id;
        }
        return acquire(rej.remoteCommId(), rej.messageRejected() == Rej.REJECTED_REQ ? 0 : rej.localCommId(),
                source, rej);
    }

    private void onRej(Gid source, Rej rej) {
        IbCmId id = rejected(source, rej);
        if (id == null) {
            return;
        }
        switch (id.state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD, REP_RCVD, MRA_REP_SENT, ESTABLISHED, REQ_RCVD,
                    MRA_REQ_SENT -> {
                if (id.state == IbCmState.ESTABLISHED && rej.reason() != RejectReason.STALE_CONN.value()) {
                    return;
                }
                toIdle(id);
                deliver(id, new IbCmEvent(IbCmEvent.Type.REJ_RECEIVED, rej, null, 0));
            }
            default -> {
                // not waiting for anything a REJ could answer
            }
        }
    }

    private void onMra(Gid source, Mra mra) {
        // cm_acquire_mraed_id: an MRA of our REQ carries our id only (the peer's is not ours yet)
        IbCmId id = acquire(mra.remoteCommId(), mra.messageMraed() == Mra.MRAED_REQ ? 0 : mra.localCommId(),
                source, mra);
        if (id == null) {
            return;
        }
        long extended = toMs(peerTime(mra.serviceTimeout())) + 2 * toMs(id.packetLifeTime);
        if (id.state == IbCmState.REQ_SENT && mra.messageMraed() == Mra.MRAED_REQ) {
            id.state = IbCmState.MRA_REQ_RCVD;
        } else if (id.state == IbCmState.REP_SENT && mra.messageMraed() == Mra.MRAED_REP) {
            id.state = IbCmState.MRA_REP_RCVD;
        } else {
            counters.duplicate(mra);
            return;
        }
        // cm_mra_handler: the answer comes later; wait the service timeout before giving up.
        if (id.pending != null) {
            armTimer(id, extended);
        }
        deliver(id, new IbCmEvent(IbCmEvent.Type.MRA_RECEIVED, mra, null, 0));
    }

    private void onDreq(Gid source, long tid, Dreq dreq) {
        IbCmId id = acquire(dreq.remoteCommId(), dreq.localCommId(), source, dreq);
        if (id == null) {
            // cm_dreq_handler: an unknown connection gets a DREP so the peer can finish.
            send(source, tid, new Drep(0, dreq.localCommId(), Octets.empty()));
            return;
        }
        if (dreq.remoteQpnEecn() != id.localQpn) {
            counters.dropped(dreq); // cm_dreq_handler: not for this connection's QP
            return;
        }
        switch (id.state) {
            case REP_SENT, MRA_REP_RCVD, ESTABLISHED, DREQ_SENT -> {
                cancelTimer(id);
                id.state = IbCmState.DREQ_RCVD;
                id.lastAnswerTid = tid;
                deliver(id, new IbCmEvent(IbCmEvent.Type.DREQ_RECEIVED, dreq, null, 0));
            }
            case TIMEWAIT -> {
                counters.duplicate(dreq);
                send(id.remoteGid, tid, new Drep(id.localId, id.remoteId, Octets.empty()));
            }
            default -> counters.duplicate(dreq);
        }
    }

    private void onDrep(Gid source, Drep drep) {
        IbCmId id = acquire(drep.remoteCommId(), drep.localCommId(), source, drep);
        if (id == null) {
            return;
        }
        if (id.state == IbCmState.DREQ_SENT || id.state == IbCmState.DREQ_RCVD) {
            enterTimewait(id);
            deliver(id, new IbCmEvent(IbCmEvent.Type.DREP_RECEIVED, drep, null, 0));
        }
    }

    private void onSidrReq(Gid source, long tid, SidrReq req) {
        SidrKey key = new SidrKey(node(source), req.requestId());
        if (sidrRequests.containsKey(key)) {
            counters.duplicate(req);
            return;
        }
        IbCmId listener = listeners.get(req.serviceId());
        if (listener == null) {
            send(source, tid, new SidrRep(req.requestId(), SidrRep.STATUS_UNSUPPORTED, Octets.empty(), 0, 0,
                    req.serviceId(), 0, 0, Octets.empty()));
            return;
        }
        IbCmId id = createId(listener.handler, listener.context);
        id.state = IbCmState.SIDR_REQ_RCVD;
        id.remoteId = req.requestId();
        id.remoteGid = source;
        id.tid = tid;
        id.serviceId = req.serviceId();
        sidrRequests.put(key, id);
        deliverRequest(listener, id, new IbCmEvent(IbCmEvent.Type.SIDR_REQ_RECEIVED, req, id, 0));
    }

    private void onSidrRep(Gid source, SidrRep rep) {
        IbCmId id = acquire(rep.requestId(), 0, source, rep);
        if (id == null || id.state != IbCmState.SIDR_REQ_SENT) {
            return;
        }
        cancelTimer(id);
        id.state = IbCmState.IDLE;
        deliver(id, new IbCmEvent(IbCmEvent.Type.SIDR_REP_RECEIVED, rep, null, 0));
    }
}
