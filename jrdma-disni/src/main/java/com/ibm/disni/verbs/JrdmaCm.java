package com.ibm.disni.verbs;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;

/**
 * DiSNI's connection manager on {@code io.jrdma.cm}: each {@link RdmaEventChannel} is a jrdma
 * {@link EventChannel}, each {@link RdmaCmId} a jrdma {@link CmId} (whose user context points back at it).
 */
final class JrdmaCm extends RdmaCm {
    /** Address and route resolution bound when the caller gives none (librdmacm's examples use 2 s). */
    private static final Duration DEFAULT_RESOLVE = io.jrdma.cm.RdmaCm.DEFAULT_RESOLVE_TIMEOUT;

    /** DiSNI's event type (librdmacm's value) of each jrdma event type, by jrdma ordinal. */
    private static final int[] EVENT_TYPES = new int[CmEventType.values().length];

    static {
        for (CmEventType t : CmEventType.values()) {
            EVENT_TYPES[t.ordinal()] = RdmaCmEvent.EventType.valueOf("RDMA_CM_EVENT_" + t.name()).ordinal();
        }
    }

    JrdmaCm() {
    }

    /** librdmacm's value of a jrdma event type. */
    static int eventType(CmEventType type) {
        return EVENT_TYPES[type.ordinal()];
    }

    private static JEventChannel channel(RdmaEventChannel ch) throws IOException {
        if (!(ch instanceof JEventChannel j)) {
            throw new IOException("not an event channel of jrdma-disni: " + ch);
        }
        if (!j.isOpen()) {
            throw new IOException("the event channel is destroyed");
        }
        return j;
    }

    private static JCmId id(RdmaCmId id) throws IOException {
        if (!(id instanceof JCmId j)) {
            throw new IOException("not an RdmaCmId of jrdma-disni: " + id);
        }
        if (!j.isOpen()) {
            throw new IOException("the RdmaCmId is destroyed");
        }
        return j;
    }

    private static InetSocketAddress inet(SocketAddress a, String what) throws IOException {
        if (a == null) {
            return null;
        }
        if (!(a instanceof InetSocketAddress i)) {
            throw new IOException(what + " must be an InetSocketAddress, not " + a.getClass().getName());
        }
        if (i.isUnresolved()) {
            throw new IOException(what + " " + i + " is unresolved");
        }
        return i;
    }

    @Override
    public RdmaEventChannel createEventChannel() throws IOException {
        try {
            return new JEventChannel(Jrdma.nextNumber(), Jrdma.cm().createEventChannel());
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_create_event_channel", e);
        }
    }

    @Override
    public RdmaCmId createId(RdmaEventChannel cmChannel, short rdmaPs) throws IOException {
        JEventChannel ch = channel(cmChannel);
        PortSpace ps = switch (rdmaPs) {
            case RDMA_PS_TCP -> PortSpace.TCP;
            case RDMA_PS_UDP -> PortSpace.UDP;
            case RDMA_PS_IPOIB -> PortSpace.IPOIB;
            default -> throw new IOException("rdma_create_id: unknown port space 0x" + Integer.toHexString(rdmaPs));
        };
        try {
            CmId cmId = ch.channel.createId(null, ps);
            JCmId id = new JCmId(ch, cmId, rdmaPs);
            cmId.context(id);
            return id;
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_create_id", e);
        }
    }

    @Override
    public IbvQP createQP(RdmaCmId id, IbvPd pd, IbvQPInitAttr attr) throws IOException {
        JCmId j = id(id);
        if (!(pd instanceof JrdmaVerbs.JPd jpd) || !jpd.isOpen()) {
            throw new IOException("rdma_create_qp: the protection domain is not an open one of jrdma-disni");
        }
        CompletionQueue sendCq = JrdmaVerbs.cq(attr.getSend_cq(), "send CQ");
        CompletionQueue recvCq = JrdmaVerbs.cq(attr.getRecv_cq(), "receive CQ");
        if (attr.getSrq() != 0) {
            throw new IOException("rdma_create_qp: shared receive queues are not part of DiSNI's API (srq must be 0)");
        }
        QpType type = switch (attr.getQp_type()) {
            case IbvQP.IBV_QPT_RC -> QpType.RC;
            case IbvQP.IBV_QPT_UC -> QpType.UC;
            case IbvQP.IBV_QPT_UD -> QpType.UD;
            default -> throw new IOException("rdma_create_qp: unknown QP type " + attr.getQp_type());
        };
        IbvQPCap c = attr.cap();
        try {
            // DiSNI's native code always asked for 4 SGEs each way; an application that leaves the SGE counts at
            // 0 gets that (bounded by the device), one that sets them gets what it asked for.
            int deviceSge = jpd.context().attributes().maxSge();
            int sendSge = c.getMax_send_sge() > 0 ? c.getMax_send_sge() : Math.min(4, deviceSge);
            int recvSge = c.getMax_recv_sge() > 0 ? c.getMax_recv_sge() : Math.min(4, deviceSge);
            QpCap cap = new QpCap(c.getMax_send_wr(), c.getMax_recv_wr(), sendSge, recvSge, c.getMax_inline_data());
            QpInitAttr init = new QpInitAttr(type, sendCq, recvCq, null, cap, attr.getSq_sig_all() != 0);
            QueuePair qp = j.cmId.createQp(jpd.pd, init);
            JrdmaVerbs.JQp q = new JrdmaVerbs.JQp(qp, jpd, attr.getSend_cq(), attr.getRecv_cq());
            j.setQp(q);
            return q;
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_create_qp", e);
        }
    }

    @Override
    public void bindAddr(RdmaCmId id, SocketAddress addr) throws IOException {
        JCmId j = id(id);
        InetSocketAddress a = inet(addr, "the bind address");
        if (a == null) {
            throw new IOException("rdma_bind_addr: the address must not be null");
        }
        try {
            j.cmId.bind(a);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_bind_addr(" + a + ")", e);
        }
    }

    @Override
    public void listen(RdmaCmId id, int backlog) throws IOException {
        JCmId j = id(id);
        try {
            j.cmId.listen(backlog);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_listen", e);
        }
    }

    @Override
    public void resolveAddr(RdmaCmId id, SocketAddress src, SocketAddress dst, int timeout) throws IOException {
        JCmId j = id(id);
        InetSocketAddress d = inet(dst, "the destination");
        if (d == null) {
            throw new IOException("rdma_resolve_addr: the destination must not be null");
        }
        InetSocketAddress s = inet(src, "the source");
        if (s == null) {
            s = deviceSource(d.getAddress());
        }
        try {
            j.cmId.resolveAddr(s, d, timeout > 0 ? Duration.ofMillis(timeout) : DEFAULT_RESOLVE);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_resolve_addr(" + d + ")", e);
        }
    }

    /**
     * The source address of an id resolved without one when {@link Jrdma#DEVICES_PROPERTY} names devices: the
     * first address of the first named device of the destination's family (and loopback if the destination is),
     * so that a device on 127.0.0.2 reaches 127.0.0.1 from its own address. {@code null} (pick by route, as
     * librdmacm does) when no device is named or none has such an address.
     */
    private static InetSocketAddress deviceSource(InetAddress dst) throws IOException {
        List<String> names = Jrdma.restrictedDevices();
        if (names.isEmpty()) {
            return null;
        }
        for (Device dev : Jrdma.cm().devices()) {
            if (dev.servesAddress(dst) && dst.isLoopbackAddress()) {
                // the device serves the destination's own loopback address: routing picks it already
                return null;
            }
            for (InetAddress a : dev.addresses()) {
                if ((a instanceof Inet6Address) == (dst instanceof Inet6Address)
                        && a.isLoopbackAddress() == dst.isLoopbackAddress()) {
                    return new InetSocketAddress(a, 0);
                }
            }
        }
        return null;
    }

    @Override
    public void resolveRoute(RdmaCmId id, int timeout) throws IOException {
        JCmId j = id(id);
        try {
            j.cmId.resolveRoute(timeout > 0 ? Duration.ofMillis(timeout) : DEFAULT_RESOLVE);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_resolve_route", e);
        }
    }

    @Override
    public RdmaCmEvent getCmEvent(RdmaEventChannel cmChannel, int timeout) throws IOException {
        JEventChannel ch = channel(cmChannel);
        CmEvent e;
        try {
            e = timeout < 0 ? ch.channel.getEvent() : ch.channel.getEvent(Duration.ofMillis(timeout));
        } catch (InterruptedException x) {
            throw Jrdma.interrupted("rdma_get_cm_event", x);
        } catch (RuntimeException x) {
            throw Jrdma.io("rdma_get_cm_event", x);
        }
        return e == null ? null : ch.convert(e);
    }

    /** jrdma's parameters for DiSNI's: IRD and ORD default to the device's maximum, as DiSNI's native code set. */
    static ConnParam connParam(JCmId id, RdmaConnParam p) throws IOException {
        if (p == null) {
            p = new RdmaConnParam();
        }
        DeviceAttributes attrs = null;
        if (!p.responderResourcesSet() || !p.initiatorDepthSet()) {
            JrdmaVerbs.JContext ctx = (JrdmaVerbs.JContext) id.getVerbs();
            attrs = ctx == null ? null : ctx.attributes();
        }
        int ird = p.responderResourcesSet() ? Byte.toUnsignedInt(p.getResponder_resources())
                : attrs == null ? 1 : Math.min(255, attrs.maxQpRdAtom());
        int ord = p.initiatorDepthSet() ? Byte.toUnsignedInt(p.getInitiator_depth())
                : attrs == null ? 1 : Math.min(255, attrs.maxQpInitRdAtom());
        return new ConnParam(p.getPrivateData(), ird, ord, p.getFlow_control() != 0, p.getRetry_count() & 7,
                p.getRnr_retry_count() & 7, p.getSrq() != 0, p.getQp_num() & 0xFFFFFF);
    }

    @Override
    public void connect(RdmaCmId id, RdmaConnParam connParam) throws IOException {
        JCmId j = id(id);
        ConnParam p = connParam(j, connParam);
        try {
            j.cmId.connect(p);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_connect", e);
        }
    }

    /** {@code rdma_connect} whose answer is awaited at most {@code timeout} ms (UNREACHABLE after it). */
    void connect(RdmaCmId id, RdmaConnParam connParam, int timeout) throws IOException {
        if (timeout <= 0) {
            connect(id, connParam);
            return;
        }
        JCmId j = id(id);
        ConnParam p = connParam(j, connParam);
        try {
            j.cmId.connect(p, Duration.ofMillis(timeout));
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_connect", e);
        }
    }

    @Override
    public void accept(RdmaCmId id, RdmaConnParam connParam) throws IOException {
        JCmId j = id(id);
        ConnParam p = connParam(j, connParam);
        try {
            j.cmId.accept(p);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_accept", e);
        }
    }

    /** {@code rdma_reject} with private data. */
    void reject(RdmaCmId id, byte[] privateData) throws IOException {
        JCmId j = id(id);
        try {
            j.cmId.reject(privateData);
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_reject", e);
        }
    }

    @Override
    public int ackCmEvent(RdmaCmEvent cmEvent) {
        if (!(cmEvent instanceof JCmEvent e)) {
            return -1;
        }
        return e.ack();
    }

    @Override
    public int disconnect(RdmaCmId id) throws IOException {
        JCmId j = id(id);
        try {
            j.cmId.disconnect();
            return 0;
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_disconnect", e);
        }
    }

    @Override
    public int destroyEventChannel(RdmaEventChannel cmChannel) throws IOException {
        JEventChannel ch = channel(cmChannel);
        try {
            ch.channel.close();
            ch.close();
            return 0;
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_destroy_event_channel", e);
        }
    }

    @Override
    public int destroyCmId(RdmaCmId id) throws IOException {
        JCmId j = id(id);
        j.close();
        try {
            j.cmId.destroy();
            return 0;
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_destroy_id", e);
        }
    }

    @Override
    public int destroyQP(RdmaCmId id) throws IOException {
        JCmId j = id(id);
        try {
            j.cmId.destroyQp();
        } catch (RuntimeException e) {
            throw Jrdma.io("rdma_destroy_qp", e);
        }
        IbvQP qp = j.getQp();
        if (qp != null) {
            qp.close();
        }
        return 0;
    }

    @Override
    public SocketAddress getSrcAddr(RdmaCmId id) throws IOException {
        return id(id).cmId.localAddress();
    }

    @Override
    public SocketAddress getDstAddr(RdmaCmId id) throws IOException {
        return id(id).cmId.peerAddress();
    }

    @Override
    public int destroyEp(RdmaCmId id) throws IOException {
        JCmId j = id(id);
        if (j.getQp() != null && j.getQp().isOpen()) {
            destroyQP(j);
        }
        return destroyCmId(j);
    }

    /** An event channel: a jrdma {@link EventChannel}. */
    static final class JEventChannel extends RdmaEventChannel {
        final EventChannel channel;

        JEventChannel(int fd, EventChannel channel) throws IOException {
            super(fd);
            this.channel = channel;
        }

        /** DiSNI's event for a jrdma one; a connection request brings a new id. */
        RdmaCmEvent convert(CmEvent e) throws IOException {
            JCmId conn;
            JCmId listen = null;
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                listen = e.listenId() != null && e.listenId().context() instanceof JCmId l ? l : null;
                conn = new JCmId(this, e.id(), listen != null ? (short) listen.getPs() : RDMA_PS_TCP);
                e.id().context(conn);
            } else {
                conn = e.id() != null && e.id().context() instanceof JCmId c ? c : null;
            }
            return new JCmEvent(this, e, eventType(e.type()), listen, conn);
        }
    }

    /** A connection-manager id: a jrdma {@link CmId}. */
    static final class JCmId extends RdmaCmId {
        final CmId cmId;

        JCmId(JEventChannel channel, CmId cmId, short ps) throws IOException {
            super(channel, null);
            this.cmId = cmId;
            this.ps = ps;
        }

        @Override
        public IbvContext getVerbs() throws IOException {
            if (verbs == null && isOpen) {
                JrdmaVerbs.JContext c = Jrdma.context(cmId.verbs());
                if (c != null) {
                    setVerbs(c);
                    setPort_num((byte) 1);
                }
            }
            return verbs;
        }
    }

    /** An event: a jrdma {@link CmEvent} and the channel it came from. */
    static final class JCmEvent extends RdmaCmEvent {
        private final JEventChannel channel;
        private final CmEvent event;
        private boolean acked;

        JCmEvent(JEventChannel channel, CmEvent event, int type, JCmId listen, JCmId conn) throws IOException {
            super(type, listen, conn);
            this.channel = channel;
            this.event = event;
            this.status = event.status();
            ConnParam p = event.param();
            if (p != null) {
                conn().setPrivateData(p.privateData());
                this.conn.responder_resources = (byte) p.responderResources();
                this.conn.initiator_depth = (byte) p.initiatorDepth();
                this.conn.flow_control = (byte) (p.flowControl() ? 1 : 0);
                this.conn.retry_count = (byte) p.retryCount();
                this.conn.rnr_retry_count = (byte) p.rnrRetryCount();
                this.conn.srq = (byte) (p.srq() ? 1 : 0);
                this.conn.qp_num = p.qpNum();
            } else if (event.privateData().length > 0) {
                conn().setPrivateData(event.privateData());
            }
        }

        private RdmaConnParam conn() {
            return conn;
        }

        /** The jrdma event. */
        CmEvent event() {
            return event;
        }

        synchronized int ack() {
            if (acked) {
                return -1;
            }
            try {
                channel.channel.ackEvent(event);
                acked = true;
                return 0;
            } catch (RuntimeException e) {
                return -1;
            }
        }
    }
}
