package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.cm.Ece;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's connection manager through librdmacm: one event channel per process, read by one daemon
 * thread ({@code jrdma-native-cm}) that copies each event, acknowledges it at once (so that
 * {@code rdma_destroy_id} never waits for an event the program did not take) and queues it on its
 * {@link Id}; a connect request is queued on the listening id, carrying the new id.
 *
 * <p>QPs stay jrdma-native's: librdmacm opens contexts of its own ({@code id->verbs}), so an id is
 * not given a QP with {@code rdma_create_qp}. A QP of jrdma-native's context on the same device is
 * moved to INIT with the attributes {@code rdma_init_qp_attr} gives, and its number goes to the kernel
 * in {@code rdma_conn_param.qp_num}; the kernel's iWARP CM looks the QP up by number on the device
 * and moves it to RTS when the connection is up. On IB and RoCE, which need RTR and RTS from user space,
 * the QP is moved on with the attributes {@code rdma_init_qp_attr} gives: on accept before
 * {@code rdma_accept}, and on the active side when CONNECT_RESPONSE comes, followed by
 * {@code rdma_establish}.
 *
 * <p>librdmacm has no option for the minimum RNR timer (the kernel's {@code rdma_set_min_rnr_timer} is for
 * kernel users): an id keeps the value and writes it into the RTR attributes of its QP, where the kernel would.
 * The ECE of an id without a librdmacm QP is librdmacm's own bookkeeping: {@code rdma_set_local_ece} before
 * connect or accept, {@code rdma_get_remote_ece} once the request or the reply came.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeCm {
    /** enum rdma_cm_event_type, by value. */
    static final String[] EVENT_NAMES = {"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
        "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
        "DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"};
    static final int ADDR_RESOLVED = 0;
    static final int ROUTE_RESOLVED = 2;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int MULTICAST_JOIN = 12;
    static final int MULTICAST_ERROR = 13;
    private static final int IBV_TRANSPORT_IWARP = 1;
    private static final long EVENT_SLICE_MS = 100;

    private static volatile NativeCm instance;

    private final MemorySegment channel;
    private final int fd;
    private final Map<Long, Id> ids = new ConcurrentHashMap<>();
    private final Thread reader;

    private NativeCm() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment ch = (MemorySegment) Rdmacm.CREATE_EVENT_CHANNEL.invokeExact(errno);
            if (ch.address() == 0) {
                throw Ibv.fail("rdma_create_event_channel", Ibv.errno(errno));
            }
            channel = ch.reinterpret(8);
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
        fd = channel.get(JAVA_INT, Rdmacm.CHANNEL_FD);
        Fds.nonBlocking(fd);
        reader = Thread.ofPlatform().daemon().name("jrdma-native-cm").unstarted(this::readEvents);
        reader.start();
    }

    /** The process's connection manager; {@link IllegalStateException} naming why when librdmacm cannot work. */
    static NativeCm get() {
        NativeCm cm = instance;
        if (cm == null) {
            synchronized (NativeCm.class) {
                cm = instance;
                if (cm == null) {
                    String why = Rdmacm.unavailable();
                    if (why != null) {
                        throw new IllegalStateException("native connection manager unavailable: " + why);
                    }
                    cm = new NativeCm();
                    instance = cm;
                }
            }
        }
        return cm;
    }

    /** A new RC (RDMA_PS_TCP) id on the process's channel. */
    Id createId() {
        return createId(false);
    }

    /** A new id on the process's channel: UD of the UDP port space ({@code udp}) or RC of the TCP one. */
    Id createId(boolean udp) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment out = a.allocate(ADDRESS);
            int rc = (int) Rdmacm.CREATE_ID.invokeExact(errno, channel, out, MemorySegment.NULL,
                    udp ? Rdmacm.PS_UDP : Rdmacm.PS_TCP);
            if (rc != 0) {
                throw Ibv.fail("rdma_create_id", Ibv.errno(errno));
            }
            return register(out.get(ADDRESS, 0), udp);
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    private Id register(MemorySegment id, boolean udp) {
        Id i = new Id(this, id.reinterpret(8), udp);
        ids.put(id.address(), i);
        return i;
    }

    private void readEvents() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment out = a.allocate(ADDRESS);
            while (true) {
                if (!Fds.waitReadable(fd, EVENT_SLICE_MS)) {
                    continue;
                }
                int rc = (int) Rdmacm.GET_CM_EVENT.invokeExact(errno, channel, out);
                if (rc != 0) {
                    continue; // EAGAIN: another wake-up took nothing
                }
                MemorySegment ev = out.get(ADDRESS, 0).reinterpret(Rdmacm.EV_PARAM + Rdmacm.UD_PARAM_SIZE);
                Runnable delivery = dispatch(ev);
                int ack = (int) Rdmacm.ACK_CM_EVENT.invokeExact(errno, ev);
                if (ack != 0) {
                    System.getLogger("io.jrdma.kernel").log(System.Logger.Level.WARNING,
                            "rdma_ack_cm_event failed: errno " + Ibv.errno(errno));
                }
                // Delivered after the acknowledgement: a listener may destroy ids (rdma_destroy_id waits for
                // every retrieved event of its id to be acknowledged).
                try {
                    delivery.run();
                } catch (RuntimeException e) {
                    System.getLogger("io.jrdma.kernel").log(System.Logger.Level.WARNING,
                            "a CM event listener threw", e);
                }
            }
        } catch (Throwable t) {
            System.getLogger("io.jrdma.kernel").log(System.Logger.Level.ERROR, "CM event thread ended", t);
        }
    }

    /** Copies {@code ev} (registering a request's new id) and returns how to deliver the copy. */
    private Runnable dispatch(MemorySegment ev) {
        int type = ev.get(JAVA_INT, Rdmacm.EV_EVENT);
        int status = ev.get(JAVA_INT, Rdmacm.EV_STATUS);
        long idAddr = ev.get(ADDRESS, Rdmacm.EV_ID).address();
        Id target = ids.get(type == CONNECT_REQUEST ? ev.get(ADDRESS, Rdmacm.EV_LISTEN_ID).address() : idAddr);
        // The param union is rdma_ud_param for ids of the UDP port space, rdma_conn_param otherwise; a request's
        // new id is of its listener's port space.
        boolean udp = target != null && target.udp;
        Id child = type == CONNECT_REQUEST ? register(ev.get(ADDRESS, Rdmacm.EV_ID), udp) : null;
        Event e = udp ? udEvent(ev, type, status, child, target) : connEvent(ev, type, status, child);
        if (target != null) {
            return () -> target.deliver(e);
        }
        Id orphan = child;
        // the listener is gone: nobody can accept or reject the request
        return orphan == null ? () -> { } : orphan::close;
    }

    private static Event connEvent(MemorySegment ev, int type, int status, Id child) {
        MemorySegment cp = ev.asSlice(Rdmacm.EV_PARAM, Rdmacm.CONN_PARAM_SIZE);
        byte[] pdata = privateData(cp.get(ADDRESS, Rdmacm.CP_PRIVATE_DATA), cp.get(JAVA_BYTE,
                Rdmacm.CP_PRIVATE_DATA_LEN));
        ConnFields f = new ConnFields(cp.get(JAVA_BYTE, Rdmacm.CP_FLOW_CONTROL) != 0,
                cp.get(JAVA_BYTE, Rdmacm.CP_RETRY_COUNT) & 7, cp.get(JAVA_BYTE, Rdmacm.CP_RNR_RETRY_COUNT) & 7,
                cp.get(JAVA_BYTE, Rdmacm.CP_SRQ) != 0, cp.get(JAVA_INT, Rdmacm.CP_QP_NUM) & 0xFFFFFF);
        return new Event(type, status, child, pdata, Byte.toUnsignedInt(cp.get(JAVA_BYTE,
                Rdmacm.CP_RESPONDER_RESOURCES)), Byte.toUnsignedInt(cp.get(JAVA_BYTE, Rdmacm.CP_INITIATOR_DEPTH)),
                null, null, f);
    }

    /**
     * An event of a UDP-port-space id: its private data, and for a SIDR exchange (ESTABLISHED, CONNECT_REQUEST)
     * or a multicast join the address vector, QP number and Q_Key the kernel gave.
     */
    private static Event udEvent(MemorySegment ev, int type, int status, Id child, Id target) {
        MemorySegment ud = ev.asSlice(Rdmacm.EV_PARAM, Rdmacm.UD_PARAM_SIZE);
        InetAddress group = null;
        byte[] pdata;
        if (type == MULTICAST_JOIN || type == MULTICAST_ERROR) {
            // librdmacm puts the join's context where the private data pointer is: the token of the group
            group = target.groupOf(ud.get(ADDRESS, Rdmacm.UD_PRIVATE_DATA).address());
            pdata = new byte[0];
        } else {
            pdata = privateData(ud.get(ADDRESS, Rdmacm.UD_PRIVATE_DATA), ud.get(JAVA_BYTE,
                    Rdmacm.UD_PRIVATE_DATA_LEN));
        }
        UdParam p = null;
        if (status == 0 && (type == ESTABLISHED || type == CONNECT_REQUEST || type == MULTICAST_JOIN)) {
            AhAttr ah = null;
            MemorySegment a = ud.asSlice(Rdmacm.UD_AH_ATTR, Ibv.AH_ATTR_SIZE);
            // A SIDR request's ah_attr is empty: the peer is then known by its address (the id's peer address).
            if (a.asSlice(Ibv.AH_DGID, 16).mismatch(MemorySegment.ofArray(new byte[16])) != -1) {
                ah = NativePd.readAh(a);
            }
            p = new UdParam(pdata, ah, ud.get(JAVA_INT, Rdmacm.UD_QP_NUM) & 0xFFFFFF, ud.get(JAVA_INT, Rdmacm.UD_QKEY));
        }
        return new Event(type, status, child, pdata, 0, 0, p, group);
    }

    private static byte[] privateData(MemorySegment pointer, byte length) {
        int len = Byte.toUnsignedInt(length);
        return pointer.address() == 0 || len == 0 ? new byte[0] : pointer.reinterpret(len).toArray(JAVA_BYTE);
    }

    /**
     * A CM event, copied out of librdmacm's before it is acknowledged; {@code ud} is what an event of a
     * UDP-port-space id carries (null otherwise, and for its events without an address vector), {@code group}
     * the multicast group a MULTICAST_JOIN or MULTICAST_ERROR answers.
     */
    record Event(int type, int status, Id newId, byte[] privateData, int responderResources, int initiatorDepth,
            UdParam ud, InetAddress group, ConnFields conn) {
        Event(int type, int status, Id newId, byte[] privateData, int responderResources, int initiatorDepth,
                UdParam ud, InetAddress group) {
            this(type, status, newId, privateData, responderResources, initiatorDepth, ud, group, ConnFields.NONE);
        }

        String name() {
            return type >= 0 && type < EVENT_NAMES.length ? EVENT_NAMES[type] : "event " + type;
        }

        @Override
        public String toString() {
            return name() + (status == 0 ? "" : " status " + status) + (privateData.length == 0 ? ""
                    : " with " + privateData.length + " B private data");
        }
    }

    /**
     * The rest of an event's {@code rdma_conn_param}: flow control, the retry and RNR retry counts, SRQ and the
     * QP number (a request's: the remote's QP).
     */
    record ConnFields(boolean flowControl, int retryCount, int rnrRetryCount, boolean srq, int qpNum) {
        static final ConnFields NONE = new ConnFields(false, 7, 7, false, 0);
    }

    /** An rdma_cm_id of the process's channel. */
    static final class Id implements AutoCloseable {
        private final NativeCm cm;
        private final MemorySegment id;
        /** Of the UDP port space: UD QPs, SIDR instead of a connection. */
        final boolean udp;
        final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
        /** Guards {@link #listener} and the hand-over of queued events to it (never the id's monitor). */
        private final Object delivery = new Object();
        private java.util.function.Consumer<Event> listener;
        /** The QP of an IB/RoCE connect until its CONNECT_RESPONSE (the CM thread completes it). */
        private volatile NativeQp connecting;
        /** The QP of this id's connection: told when the connection is up and when it is gone. */
        private volatile NativeQp connected;
        private volatile boolean closed;
        /** The minimum RNR timer code for the QP's RTR, or -1 for the kernel's. */
        private volatile int minRnrTimer = -1;
        /** The groups joined, by the token passed as the join's context (which the join's events carry). */
        private final Map<Long, InetAddress> groups = new ConcurrentHashMap<>();
        private long nextToken = 1;

        private Id(NativeCm cm, MemorySegment id, boolean udp) {
            this.cm = cm;
            this.id = id;
            this.udp = udp;
        }

        /**
         * Sends the id's events to {@code l} from now on, those queued first (instead of {@link #next}); on
         * the CM thread, one at a time.
         */
        void listener(java.util.function.Consumer<Event> l) {
            synchronized (delivery) {
                for (Event e = events.poll(); e != null; e = events.poll()) {
                    l.accept(e);
                }
                listener = l;
            }
        }

        /**
         * The active side of an IB or RoCE connection, on CONNECT_RESPONSE: RTR, RTS, rdma_establish; the
         * event the id gets instead.
         */
        private Event establish(Event e) {
            NativeQp qp = connecting;
            connecting = null;
            if (qp == null || e.type() != CONNECT_RESPONSE) {
                return e;
            }
            try {
                toConnected(qp);
                synchronized (this) {
                    call("rdma_establish", (errno, a) -> (int) Rdmacm.ESTABLISH.invokeExact(errno, id));
                }
                return new Event(ESTABLISHED, 0, null, e.privateData(), e.responderResources(), e.initiatorDepth(),
                        null, null);
            } catch (RuntimeException ex) {
                System.getLogger("io.jrdma.kernel").log(System.Logger.Level.WARNING, "completing the connection"
                        + " of " + qp.what() + " failed: " + ex.getMessage());
                // The reply cannot be taken: the peer gets a reject instead of the RTU, as librdmacm answers a
                // failed ucma_process_conn_resp.
                try {
                    reject(new byte[0]);
                } catch (RuntimeException r) {
                    ex.addSuppressed(r);
                }
                return new Event(CONNECT_ERROR, ex instanceof RdmaException r ? -r.errno().code() : -22, null,
                        e.privateData(), e.responderResources(), e.initiatorDepth(), null, null);
            }
        }

        private void deliver(Event received) {
            Event e = received.type() == CONNECT_RESPONSE ? establish(received) : received;
            NativeQp q = connected;
            if (q != null && (e.type() == ESTABLISHED || e.type() == DISCONNECTED)) {
                q.connectionIs(e.type() == ESTABLISHED);
            }
            synchronized (delivery) {
                if (closed) {
                    return;
                }
                if (listener != null) {
                    listener.accept(e);
                } else {
                    events.add(e);
                }
            }
        }

        /** rdma_bind_addr. */
        synchronized void bind(InetSocketAddress local) {
            call("rdma_bind_addr(" + local + ")", (errno, a) -> (int) Rdmacm.BIND_ADDR.invokeExact(errno, id,
                    sockaddr(a, local)));
        }

        /** rdma_listen. */
        synchronized void listen(int backlog) {
            call("rdma_listen", (errno, a) -> (int) Rdmacm.LISTEN.invokeExact(errno, id, backlog));
        }

        /** rdma_resolve_addr towards {@code dst} (from {@code src}, or any address when null). */
        synchronized void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
            call("rdma_resolve_addr(" + dst + ")", (errno, a) -> (int) Rdmacm.RESOLVE_ADDR.invokeExact(errno, id,
                    (MemorySegment) (src == null ? MemorySegment.NULL : sockaddr(a, src)), sockaddr(a, dst),
                    timeoutMs));
        }

        /** rdma_resolve_route. */
        synchronized void resolveRoute(int timeoutMs) {
            call("rdma_resolve_route", (errno, a) -> (int) Rdmacm.RESOLVE_ROUTE.invokeExact(errno, id, timeoutMs));
        }

        /**
         * rdma_connect with {@code qp} (moved to INIT) and private data. On IB and RoCE the reply comes as
         * CONNECT_RESPONSE: the CM thread then takes the QP to RTR and RTS with the attributes the kernel
         * gives and completes the connection with {@code rdma_establish}, and the id gets ESTABLISHED (or
         * CONNECT_ERROR), as librdmacm does for a QP of its own.
         */
        void connect(NativeQp qp, byte[] privateData, int responderResources, int initiatorDepth) {
            connect(qp, privateData, responderResources, initiatorDepth, ConnFields.NONE);
        }

        /**
         * rdma_connect as {@link #connect(NativeQp, byte[], int, int)}, with the rest of the conn_param; without a
         * QP ({@code qp} null) {@code f.qpNum()} is the QP number the kernel sends, and the reply comes to the id
         * as CONNECT_RESPONSE: the user moves the QP and completes the connection with {@link #establish()}.
         */
        void connect(NativeQp qp, byte[] privateData, int responderResources, int initiatorDepth, ConnFields f) {
            boolean iwarp = qp != null && toInit(qp);
            connecting = qp == null || iwarp || udp ? null : qp;
            connected = qp;
            synchronized (this) {
                call("rdma_connect", (errno, a) -> (int) Rdmacm.CONNECT.invokeExact(errno, id, connParam(a, qp,
                        privateData, responderResources, initiatorDepth, f)));
            }
        }

        /** {@code rdma_establish}: the active side of an id without a QP, after CONNECT_RESPONSE. */
        synchronized void establish() {
            call("rdma_establish", (errno, a) -> (int) Rdmacm.ESTABLISH.invokeExact(errno, id));
        }

        /**
         * rdma_accept of the request this id came with, with {@code qp} moved to INIT (and on IB and RoCE on to
         * RTR and RTS, with the attributes the request gave the kernel).
         */
        void accept(NativeQp qp, byte[] privateData, int responderResources, int initiatorDepth) {
            accept(qp, privateData, responderResources, initiatorDepth, ConnFields.NONE);
        }

        /**
         * rdma_accept as {@link #accept(NativeQp, byte[], int, int)}, with the rest of the conn_param; without a
         * QP ({@code qp} null) {@code f.qpNum()} is the QP number the kernel sends and nothing is moved.
         */
        void accept(NativeQp qp, byte[] privateData, int responderResources, int initiatorDepth, ConnFields f) {
            if (qp != null && !toInit(qp) && !udp) {
                toConnected(qp, responderResources, initiatorDepth);
            }
            connected = qp;
            synchronized (this) {
                call("rdma_accept", (errno, a) -> (int) Rdmacm.ACCEPT.invokeExact(errno, id, connParam(a, qp,
                        privateData, responderResources, initiatorDepth, f)));
            }
        }

        /** rdma_reject with private data. */
        synchronized void reject(byte[] privateData) {
            byte[] p = checkPrivateData(privateData);
            call("rdma_reject", (errno, a) -> (int) Rdmacm.REJECT.invokeExact(errno, id,
                    (MemorySegment) (p.length == 0 ? MemorySegment.NULL : a.allocateFrom(JAVA_BYTE, p)),
                    (byte) p.length));
        }

        /**
         * {@code rdma_set_option(id, RDMA_OPTION_ID, name, &value, size)}, the value a {@code uint8_t} when
         * {@code size} is 1 and an {@code int} when it is 4.
         */
        synchronized void setOption(String what, int name, int value, int size) {
            call("rdma_set_option(RDMA_OPTION_ID_" + what + ", " + value + ")", (errno, a) -> {
                MemorySegment v = size == 1 ? a.allocateFrom(JAVA_BYTE, (byte) value) : a.allocateFrom(JAVA_INT,
                        value);
                return (int) Rdmacm.SET_OPTION.invokeExact(errno, id, Rdmacm.OPTION_ID, name, v, (long) size);
            });
        }

        /** The minimum RNR timer code (0..31) the QP gets at RTR, instead of the kernel's. */
        void minRnrTimer(int code) {
            if (code < 0 || code > 31) {
                throw new IllegalArgumentException("the RNR timer code is 5 bits: " + code);
            }
            check();
            minRnrTimer = code;
        }

        /** {@code rdma_set_local_ece}: what the next connect offers or accept answers. */
        synchronized void setLocalEce(Ece ece) {
            checkEce();
            call("rdma_set_local_ece", (errno, a) -> {
                MemorySegment e = a.allocate(Rdmacm.ECE_SIZE, 4);
                e.set(JAVA_INT, Rdmacm.ECE_VENDOR_ID, ece.vendorId());
                e.set(JAVA_INT, Rdmacm.ECE_OPTIONS, ece.options());
                return (int) Rdmacm.SET_LOCAL_ECE.invokeExact(errno, id, e);
            });
        }

        /** {@code rdma_get_remote_ece}: what the peer's request or reply carried. */
        synchronized Ece remoteEce() {
            checkEce();
            int[] got = new int[2];
            call("rdma_get_remote_ece", (errno, a) -> {
                MemorySegment e = a.allocate(Rdmacm.ECE_SIZE, 4);
                int rc = (int) Rdmacm.GET_REMOTE_ECE.invokeExact(errno, id, e);
                got[0] = e.get(JAVA_INT, Rdmacm.ECE_VENDOR_ID);
                got[1] = e.get(JAVA_INT, Rdmacm.ECE_OPTIONS);
                return rc;
            });
            return new Ece(got[0] & 0xFFFFFF, got[1]);
        }

        /** {@code rdma_reject_ece}: a reject saying the request's ECE is not supported. */
        synchronized void rejectEce(byte[] privateData) {
            checkEce();
            byte[] p = checkPrivateData(privateData);
            call("rdma_reject_ece", (errno, a) -> (int) Rdmacm.REJECT_ECE.invokeExact(errno, id,
                    (MemorySegment) (p.length == 0 ? MemorySegment.NULL : a.allocateFrom(JAVA_BYTE, p)),
                    (byte) p.length));
        }

        private static void checkEce() {
            String why = Rdmacm.eceUnavailable();
            if (why != null) {
                throw new UnsupportedOperationException(why);
            }
        }

        /**
         * {@code rdma_join_multicast(id, group, token)}: MULTICAST_JOIN or MULTICAST_ERROR follows, naming the
         * group by the token.
         */
        synchronized void joinMulticast(InetAddress group) {
            long token = nextToken++;
            groups.put(token, group);
            try {
                call("rdma_join_multicast(" + group.getHostAddress() + ")", (errno, a) ->
                        (int) Rdmacm.JOIN_MULTICAST.invokeExact(errno, id, sockaddr(a, new InetSocketAddress(group, 0)),
                                MemorySegment.ofAddress(token)));
            } catch (RuntimeException e) {
                groups.remove(token);
                throw e;
            }
        }

        /** {@code rdma_leave_multicast}. */
        synchronized void leaveMulticast(InetAddress group) {
            groups.values().remove(group);
            call("rdma_leave_multicast(" + group.getHostAddress() + ")", (errno, a) ->
                    (int) Rdmacm.LEAVE_MULTICAST.invokeExact(errno, id, sockaddr(a, new InetSocketAddress(group, 0))));
        }

        /** The group joined with {@code token}, or null. */
        InetAddress groupOf(long token) {
            return groups.get(token);
        }

        /** rdma_disconnect. */
        synchronized void disconnect() {
            call("rdma_disconnect", (errno, a) -> (int) Rdmacm.DISCONNECT.invokeExact(errno, id));
        }

        /** The next event, or null after {@code millis}. */
        Event next(long millis) throws InterruptedException {
            return events.poll(millis, TimeUnit.MILLISECONDS);
        }

        /** The next event, which must be of {@code type} with status 0 within {@code millis}. */
        Event expect(int type, long millis) throws InterruptedException {
            Event e = next(millis);
            if (e == null) {
                throw new RdmaException(Errno.ETIMEDOUT, "no " + EVENT_NAMES[type] + " within " + millis + " ms");
            }
            if (e.type() != type || e.status() != 0) {
                throw new RdmaException(Errno.ECONNREFUSED, "expected " + EVENT_NAMES[type] + ", got " + e);
            }
            return e;
        }

        /** The device librdmacm bound the id to ({@code id->verbs->device}), or null before it is bound. */
        synchronized String deviceName() {
            MemorySegment dev = device();
            if (dev == null) {
                return null;
            }
            try {
                MemorySegment n = (MemorySegment) Ibv.GET_DEVICE_NAME.invokeExact(dev);
                return n.reinterpret(64).getString(0);
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }

        /** {@link #deviceName()}, or null when closed. */
        String deviceNameOrNull() {
            try {
                return deviceName();
            } catch (IllegalStateException closedId) {
                return null;
            }
        }

        private MemorySegment device() {
            check();
            MemorySegment verbs = id.get(ADDRESS, Rdmacm.ID_VERBS);
            return verbs.address() == 0 ? null : verbs.reinterpret(8).get(ADDRESS, 0).reinterpret(Ibv.DEVICE_SIZE);
        }

        /** What rdma_get_local_addr gives. */
        synchronized InetSocketAddress localAddress() {
            return address(Rdmacm.ID_SRC_ADDR);
        }

        /** What rdma_get_peer_addr gives. */
        synchronized InetSocketAddress peerAddress() {
            return address(Rdmacm.ID_DST_ADDR);
        }

        private InetSocketAddress address(long offset) {
            check();
            return fromSockaddr(id.reinterpret(offset + Rdmacm.SOCKADDR_SIZE).asSlice(offset, Rdmacm.SOCKADDR_SIZE));
        }

        /**
         * Checks the QP's device, moves it from RESET to INIT (as {@code rdma_create_qp} does; a QP already past
         * RESET is left as it is); whether the device is iWARP.
         */
        boolean toInit(NativeQp qp) {
            if (qp == null) {
                throw new IllegalArgumentException("qp must not be null");
            }
            String mine;
            int transport;
            synchronized (this) {
                MemorySegment dev = device();
                if (dev == null) {
                    throw new IllegalStateException("the id is not bound to a device yet: resolve its address"
                            + " and route (or take it from a connect request) first");
                }
                mine = deviceName();
                transport = dev.get(JAVA_INT, Ibv.DEVICE_TRANSPORT_TYPE);
            }
            String qpDevice = ((NativePd) qp.pd()).context.device().name();
            if (!qpDevice.equals(mine)) {
                throw new IllegalArgumentException(qp.what() + " is on " + qpDevice + ", the id on " + mine);
            }
            boolean iwarp = transport == IBV_TRANSPORT_IWARP;
            if (qp.state() == QpState.RESET) {
                toState(qp, QpState.INIT, !udp, -1);
            }
            return iwarp;
        }

        /**
         * A UD QP of a UDP-port-space id to RTS, as {@code rdma_create_qp} takes one there: INIT with the
         * attributes {@code rdma_init_qp_attr} gives (port, P_Key index, the port space's Q_Key), then RTR, then
         * RTS with send PSN 0. A UD QP needs nothing of the peer: SIDR only tells each side the other's QP
         * number and Q_Key, which go into each send's address.
         */
        void udToRts(NativeQp qp) {
            toInit(qp);
            if (qp.state() == QpState.INIT) {
                qp.modify(new io.jrdma.verbs.QpAttr().qpState(QpState.RTR));
            }
            if (qp.state() == QpState.RTR) {
                qp.modify(new io.jrdma.verbs.QpAttr().qpState(QpState.RTS).sqPsn(0));
            }
        }

        /**
         * IB and RoCE, once the CM exchange gave the connection's attributes: INIT again (the access flags: before
         * the exchange the kernel gives none, after it remote write, and remote read and atomics when the peer
         * has responder resources, as librdmacm's own modify to RTR does), then RTR and RTS.
         */
        private void toConnected(NativeQp qp) {
            toConnected(qp, -1, -1);
        }

        /**
         * {@link #toConnected(NativeQp)} for the passive side, before {@code rdma_accept}: the kernel still holds
         * the request's depths then, so the QP's IRD ({@code max_dest_rd_atomic}, at RTR) and ORD
         * ({@code max_rd_atomic}, at RTS) are the accept's responder resources and initiator depth, as librdmacm
         * moves a QP of its own ({@code -1}: the kernel's).
         */
        private void toConnected(NativeQp qp, int ird, int ord) {
            toState(qp, QpState.INIT);
            toState(qp, QpState.RTR, false, ird);
            toState(qp, QpState.RTS, false, ord);
        }

        /** Moves {@code qp} to {@code state} with the attributes {@code rdma_init_qp_attr} gives for it. */
        private void toState(NativeQp qp, QpState state) {
            toState(qp, state, false, -1);
        }

        /**
         * {@link #toState(NativeQp, QpState)}; with {@code grant}, a QP of a connected port space taken to INIT
         * before the CM exchange (for which the kernel gives no access flags) gets remote read and write, as
         * jrdma's {@code rdma_create_qp} grants them on every device; the exchange's INIT sets what was negotiated.
         * A {@code depth} other than -1 replaces the kernel's IRD at RTR, or its ORD at RTS.
         */
        private void toState(NativeQp qp, QpState state, boolean grant, int depth) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment attr = a.allocate(Ibv.QP_ATTR_SIZE, 8);
                int m = initAttr(a, attr, state);
                if (depth >= 0 && state == QpState.RTR && (m & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
                    attr.set(JAVA_BYTE, Ibv.QPA_MAX_DEST_RD_ATOMIC, (byte) depth);
                }
                if (depth >= 0 && state == QpState.RTS && (m & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
                    attr.set(JAVA_BYTE, Ibv.QPA_MAX_RD_ATOMIC, (byte) depth);
                }
                if (grant && state == QpState.INIT && (m & QpAttrMask.ACCESS_FLAGS) != 0
                        && attr.get(JAVA_INT, Ibv.QPA_ACCESS) == 0) {
                    attr.set(JAVA_INT, Ibv.QPA_ACCESS, io.jrdma.verbs.Access.REMOTE_READ
                            | io.jrdma.verbs.Access.REMOTE_WRITE);
                }
                qp.modifyRaw(attr, m);
            }
        }

        /**
         * {@code rdma_init_qp_attr(id, attr, mask)} for {@code state} into {@code attr}, with the minimum RNR timer
         * the id keeps written into RTR's; the mask.
         */
        private int initAttr(Arena a, MemorySegment attr, QpState state) {
            try {
                MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                MemorySegment mask = a.allocate(JAVA_INT);
                attr.set(JAVA_INT, Ibv.QPA_STATE, state.ordinal());
                int rc;
                synchronized (this) {
                    check();
                    rc = (int) Rdmacm.INIT_QP_ATTR.invokeExact(errno, id, attr, mask);
                }
                if (rc != 0) {
                    int e = Ibv.errno(errno);
                    if (e == 22) {
                        throw new IllegalStateException("rdma_init_qp_attr(" + state + ") refused (EINVAL): the id"
                                + " has no attributes for it yet");
                    }
                    throw Ibv.fail("rdma_init_qp_attr(" + state + ")", e);
                }
                int m = mask.get(JAVA_INT, 0);
                int rnr = minRnrTimer;
                if (state == QpState.RTR && rnr >= 0 && (m & QpAttrMask.MIN_RNR_TIMER) != 0) {
                    attr.set(JAVA_BYTE, Ibv.QPA_MIN_RNR_TIMER, (byte) rnr);
                }
                return m;
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }

        /**
         * {@code rdma_init_qp_attr}: the attributes the kernel gives a QP of this id for {@code state}, those its
         * mask names set.
         */
        io.jrdma.verbs.QpAttr initQpAttr(QpState state) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment at = a.allocate(Ibv.QP_ATTR_SIZE, 8);
                int m = initAttr(a, at, state);
                io.jrdma.verbs.QpAttr r = new io.jrdma.verbs.QpAttr();
                if ((m & QpAttrMask.STATE) != 0) {
                    r.qpState(QpState.values()[Math.min(6, at.get(JAVA_INT, Ibv.QPA_STATE))]);
                }
                if ((m & QpAttrMask.PATH_MTU) != 0) {
                    r.pathMtu(io.jrdma.verbs.Mtu.ofValue(at.get(JAVA_INT, Ibv.QPA_PATH_MTU)));
                }
                if ((m & QpAttrMask.QKEY) != 0) {
                    r.qkey(at.get(JAVA_INT, Ibv.QPA_QKEY));
                }
                if ((m & QpAttrMask.RQ_PSN) != 0) {
                    r.rqPsn(at.get(JAVA_INT, Ibv.QPA_RQ_PSN));
                }
                if ((m & QpAttrMask.SQ_PSN) != 0) {
                    r.sqPsn(at.get(JAVA_INT, Ibv.QPA_SQ_PSN));
                }
                if ((m & QpAttrMask.DEST_QPN) != 0) {
                    r.destQpNum(at.get(JAVA_INT, Ibv.QPA_DEST_QP_NUM));
                }
                if ((m & QpAttrMask.ACCESS_FLAGS) != 0) {
                    r.qpAccessFlags(at.get(JAVA_INT, Ibv.QPA_ACCESS));
                }
                if ((m & QpAttrMask.PKEY_INDEX) != 0) {
                    r.pkeyIndex(Short.toUnsignedInt(at.get(JAVA_SHORT, Ibv.QPA_PKEY_INDEX)));
                }
                if ((m & QpAttrMask.PORT) != 0) {
                    r.portNum(u8(at, Ibv.QPA_PORT_NUM));
                }
                if ((m & QpAttrMask.AV) != 0) {
                    r.ahAttr(NativePd.readAh(at.asSlice(Ibv.QPA_AH, Ibv.AH_ATTR_SIZE)));
                }
                if ((m & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
                    r.maxRdAtomic(u8(at, Ibv.QPA_MAX_RD_ATOMIC));
                }
                if ((m & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
                    r.maxDestRdAtomic(u8(at, Ibv.QPA_MAX_DEST_RD_ATOMIC));
                }
                if ((m & QpAttrMask.MIN_RNR_TIMER) != 0) {
                    r.minRnrTimer(u8(at, Ibv.QPA_MIN_RNR_TIMER));
                }
                if ((m & QpAttrMask.TIMEOUT) != 0) {
                    r.timeout(u8(at, Ibv.QPA_TIMEOUT));
                }
                if ((m & QpAttrMask.RETRY_CNT) != 0) {
                    r.retryCnt(u8(at, Ibv.QPA_RETRY_CNT));
                }
                if ((m & QpAttrMask.RNR_RETRY) != 0) {
                    r.rnrRetry(u8(at, Ibv.QPA_RNR_RETRY));
                }
                return r;
            }
        }

        private static int u8(MemorySegment s, long off) {
            return Byte.toUnsignedInt(s.get(JAVA_BYTE, off));
        }

        private static MemorySegment connParam(Arena a, NativeQp qp, byte[] privateData, int rr, int id,
                ConnFields f) {
            byte[] p = checkPrivateData(privateData);
            if (rr < 0 || rr > 255 || id < 0 || id > 255) {
                throw new IllegalArgumentException("responder resources and initiator depth must be 0..255: " + rr
                        + ", " + id);
            }
            MemorySegment cp = a.allocate(Rdmacm.CONN_PARAM_SIZE, 8);
            if (p.length > 0) {
                cp.set(ADDRESS, Rdmacm.CP_PRIVATE_DATA, a.allocateFrom(JAVA_BYTE, p));
                cp.set(JAVA_BYTE, Rdmacm.CP_PRIVATE_DATA_LEN, (byte) p.length);
            }
            cp.set(JAVA_BYTE, Rdmacm.CP_RESPONDER_RESOURCES, (byte) rr);
            cp.set(JAVA_BYTE, Rdmacm.CP_INITIATOR_DEPTH, (byte) id);
            cp.set(JAVA_BYTE, Rdmacm.CP_FLOW_CONTROL, (byte) (f.flowControl() ? 1 : 0));
            cp.set(JAVA_BYTE, Rdmacm.CP_RETRY_COUNT, (byte) f.retryCount());
            cp.set(JAVA_BYTE, Rdmacm.CP_RNR_RETRY_COUNT, (byte) f.rnrRetryCount());
            cp.set(JAVA_BYTE, Rdmacm.CP_SRQ, (byte) (qp == null ? (f.srq() ? 1 : 0) : qp.srq == null ? 0 : 1));
            cp.set(JAVA_INT, Rdmacm.CP_QP_NUM, qp == null ? f.qpNum() : qp.qpNum);
            return cp;
        }

        private static byte[] checkPrivateData(byte[] p) {
            if (p == null) {
                return new byte[0];
            }
            if (p.length > 255) {
                throw new IllegalArgumentException("private data is at most 255 bytes: " + p.length);
            }
            return p;
        }

        private void check() {
            if (closed) {
                throw new IllegalStateException("the CM id is closed");
            }
        }

        private interface Call {
            int run(MemorySegment errno, Arena a) throws Throwable;
        }

        private void call(String what, Call c) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                if (c.run(errno, a) != 0) {
                    int e = Ibv.errno(errno);
                    if (e == 22) {
                        throw new IllegalArgumentException(what + " refused (EINVAL)");
                    }
                    throw Ibv.fail(what, e);
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }

        /**
         * rdma_destroy_id; a second close does nothing. The id is marked closed under its monitor (a call in
         * progress ends first, none starts after) and destroyed outside it, so that the CM thread, which may
         * be reading the id's addresses for an event it has acknowledged, is never waited for.
         */
        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                cm.ids.remove(id.address());
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
                int rc = (int) Rdmacm.DESTROY_ID.invokeExact(errno, id);
                if (rc != 0) {
                    throw Ibv.fail("rdma_destroy_id", Ibv.errno(errno));
                }
            } catch (Throwable t) {
                throw Ibv.rethrow(t);
            }
        }
    }

    static MemorySegment sockaddr(Arena a, InetSocketAddress s) {
        if (s.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + s);
        }
        MemorySegment sa = a.allocate(Rdmacm.SOCKADDR_SIZE, 8);
        InetAddress ip = s.getAddress();
        sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) s.getPort());
        if (ip instanceof Inet4Address) {
            sa.set(JAVA_SHORT, 0, Rdmacm.AF_INET);
            MemorySegment.copy(ip.getAddress(), 0, sa, JAVA_BYTE, 4, 4);
        } else {
            sa.set(JAVA_SHORT, 0, Rdmacm.AF_INET6);
            MemorySegment.copy(ip.getAddress(), 0, sa, JAVA_BYTE, 8, 16);
            sa.set(JAVA_INT, 24, ((Inet6Address) ip).getScopeId());
        }
        return sa;
    }

    static InetSocketAddress fromSockaddr(MemorySegment sa) {
        short family = sa.get(JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(sa.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        try {
            if (family == Rdmacm.AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(sa.asSlice(4, 4).toArray(JAVA_BYTE)), port);
            }
            if (family == Rdmacm.AF_INET6) {
                return new InetSocketAddress(Inet6Address.getByAddress(null, sa.asSlice(8, 16).toArray(JAVA_BYTE),
                        sa.get(JAVA_INT, 24)), port);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("address family " + family);
    }
}
