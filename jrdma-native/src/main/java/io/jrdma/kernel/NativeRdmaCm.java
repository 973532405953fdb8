package io.jrdma.kernel;

import io.jrdma.cm.ConnParam;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.spi.ProviderCm;
import io.jrdma.spi.ProviderCmEvent;
import io.jrdma.spi.ProviderCmId;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The kernel's rdma_cm behind {@code io.jrdma.cm}: core's {@link io.jrdma.cm.RdmaCm} hands this provider the
 * ids whose addresses a kernel device serves, and each becomes an id of {@link NativeCm} (librdmacm). Which
 * kernel device serves an address is what {@code rdma_bind_addr} says: a probe id is bound to it and
 * destroyed.
 */
final class NativeRdmaCm implements ProviderCm {
    private final NativeProvider provider;

    NativeRdmaCm(NativeProvider provider) {
        this.provider = provider;
    }

    /** The provider's device called {@code name}, or null. */
    Device device(String name) {
        if (name == null) {
            return null;
        }
        for (Device d : provider.devices()) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }

    @Override
    public Device deviceFor(InetAddress address) {
        return device(boundDevice(address));
    }

    /**
     * The name of the kernel device {@code rdma_bind_addr} binds {@code address} to (a probe id, destroyed), or
     * null when none has it or librdmacm cannot work.
     */
    static String boundDevice(InetAddress address) {
        try (NativeCm.Id probe = NativeCm.get().createId()) {
            probe.bind(new InetSocketAddress(address, 0));
            return probe.deviceName();
        } catch (RdmaException | IllegalArgumentException | IllegalStateException none) {
            return null; // no kernel RDMA device has the address (EADDRNOTAVAIL, ENODEV), or no librdmacm
        }
    }

    @Override
    public ProviderCmId createId(PortSpace portSpace, QpType qpType, ProviderCmId.Listener listener) {
        boolean udp = portSpace == PortSpace.UDP && qpType == QpType.UD;
        if (!udp && (portSpace != PortSpace.TCP || qpType != QpType.RC)) {
            // RDMA_PS_IB: librdmacm's rdma_create_id gives an id of that port space an RC QP type whatever the
            // caller's, so its UD ids (SIDR on the listener RC requests share) cannot be made through it.
            throw new UnsupportedOperationException("the native connection manager offers RC QPs of the TCP port"
                    + " space and UD QPs of the UDP port space (not " + portSpace + "/" + qpType + ")"
                    + (portSpace == PortSpace.IB ? ": librdmacm's rdma_create_id makes RDMA_PS_IB ids RC only" : ""));
        }
        NativeRdmaCmId id = new NativeRdmaCmId(this, NativeCm.get().createId(udp));
        id.listener(listener);
        return id;
    }

    /** The most private data Linux siw carries on an MPA frame with its v2 block (see mpaPrivateDataLimit). */
    static final int SIW_MPA_PRIVATE_DATA = 255 - 4;

    /** One librdmacm id behind a core id. */
    static final class NativeRdmaCmId implements ProviderCmId {
        private final NativeRdmaCm cm;
        private final NativeCm.Id id;

        NativeRdmaCmId(NativeRdmaCm cm, NativeCm.Id id) {
            this.cm = cm;
            this.id = id;
        }

        @Override
        public void listener(Listener listener) {
            id.listener(e -> listener.onEvent(convert(e)));
        }

        private ProviderCmEvent convert(NativeCm.Event e) {
            CmEventType[] types = CmEventType.values();
            CmEventType t = e.type() >= 0 && e.type() < types.length ? types[e.type()] : CmEventType.CONNECT_ERROR;
            ProviderCmId newId = e.newId() == null ? null : new NativeRdmaCmId(cm, e.newId());
            if (id.udp) {
                // rdma_ud_param: the private data travels in it, as core's own CM delivers it
                UdParam ud = e.ud() != null ? e.ud() : e.privateData().length > 0
                        ? new UdParam(e.privateData(), null, 0, 0) : null;
                if (t == CmEventType.CONNECT_REQUEST && e.newId() != null && (ud == null || ud.ahAttr() == null)) {
                    ud = requestAh(e.newId(), ud == null ? e.privateData() : ud.privateData(),
                            ud == null ? 0 : ud.qpNum(), ud == null ? 0 : ud.qkey());
                }
                return new ProviderCmEvent(t, e.status(), newId, null, ud, e.group());
            }
            boolean carries = e.privateData().length > 0 || t == CmEventType.CONNECT_REQUEST
                    || t == CmEventType.ESTABLISHED || t == CmEventType.CONNECT_RESPONSE;
            NativeCm.ConnFields f = e.conn();
            ConnParam param = carries ? new ConnParam(e.privateData(), e.responderResources(), e.initiatorDepth(),
                    f.flowControl(), f.retryCount(), f.rnrRetryCount(), f.srq(), f.qpNum()) : null;
            return new ProviderCmEvent(t, e.status(), newId, param);
        }

        /**
         * A SIDR request's UD parameters: the kernel gives no address vector for it (its {@code ah_attr} is empty),
         * so the remote's GID is that of the request's source address, as RoCE's GIDs are the interface's addresses.
         */
        private static UdParam requestAh(NativeCm.Id request, byte[] privateData, int qpn, int qkey) {
            InetSocketAddress peer;
            try {
                peer = request.peerAddress();
            } catch (IllegalStateException unset) {
                return new UdParam(privateData, null, qpn, qkey);
            }
            AhAttr ah = new AhAttr(io.jrdma.verbs.Gid.of(peer.getAddress()), 0, 0, 64, 0, 0, 1, 0);
            return new UdParam(privateData, ah, qpn, qkey);
        }

        @Override
        public void bind(InetSocketAddress address) {
            id.bind(address);
        }

        @Override
        public void listen(int backlog) {
            id.listen(backlog);
        }

        @Override
        public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
            id.resolveAddr(src, dst, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        }

        @Override
        public void resolveRoute(Duration timeout) {
            id.resolveRoute((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        }

        private static NativeQp nativeQp(QueuePair qp) {
            if (qp instanceof NativeQp n) {
                return n;
            }
            throw new IllegalArgumentException("the native connection manager connects the id's own QP (made with"
                    + " CmId.createQp on the id's device), not " + (qp == null ? "none (conn_param.qp_num)" : qp));
        }

        /** RESET to INIT, as {@code rdma_create_qp}; a UD QP of the UDP port space on to RTS, as there too. */
        @Override
        public void qpCreated(QueuePair qp) {
            if (id.udp) {
                id.udToRts(nativeQp(qp));
            } else {
                id.toInit(nativeQp(qp));
            }
        }

        @Override
        public void joinMulticast(InetAddress group) {
            if (!id.udp) {
                throw new IllegalStateException("multicast needs an id of the UDP port space (EINVAL)");
            }
            id.joinMulticast(group);
        }

        @Override
        public void leaveMulticast(InetAddress group) {
            id.leaveMulticast(group);
        }

        /**
         * {@code rdma_connect}; without a QP the kernel is given {@code param.qpNum()} (as librdmacm's
         * {@code conn_param.qp_num}), and the reply comes as CONNECT_RESPONSE for the user to complete with
         * {@link #establish()}.
         */
        @Override
        public void connect(QueuePair qp, ConnParam param) {
            NativeCm.ConnFields f = new NativeCm.ConnFields(param.flowControl(), param.retryCount(),
                    param.rnrRetryCount(), param.srq(), param.qpNum());
            id.connect(qp == null ? null : nativeQp(qp), param.privateData(), param.responderResources(),
                    param.initiatorDepth(), f);
        }

        @Override
        public void establish() {
            id.establish();
        }

        /** What the kernel's {@code rdma_init_qp_attr} gives (the minimum RNR timer the id keeps in RTR's). */
        @Override
        public QpAttr initQpAttr(QpState state) {
            return id.initQpAttr(state);
        }

        /**
         * {@code rdma_accept}: with the id's QP, moved to INIT (and on IB and RoCE on to RTR and RTS) first; without
         * one, {@code param.qpNum()} is the QP number the kernel sends. The REP carries the accept's RNR retry count.
         */
        @Override
        public void accept(QueuePair qp, ConnParam param) {
            NativeCm.ConnFields f = new NativeCm.ConnFields(param.flowControl(), param.retryCount(),
                    param.rnrRetryCount(), param.srq(), param.qpNum());
            id.accept(qp == null ? null : nativeQp(qp), param.privateData(), param.responderResources(),
                    param.initiatorDepth(), f);
        }

        @Override
        public void reject(byte[] privateData) {
            id.reject(privateData);
        }

        @Override
        public void disconnect() {
            id.disconnect();
        }

        @Override
        public void setTos(int tos) {
            id.setOption("TOS", Rdmacm.OPTION_ID_TOS, tos, 1);
        }

        @Override
        public void setReuseAddr(boolean reuse) {
            id.setOption("REUSEADDR", Rdmacm.OPTION_ID_REUSEADDR, reuse ? 1 : 0, 4);
        }

        @Override
        public void setAfOnly(boolean afOnly) {
            id.setOption("AFONLY", Rdmacm.OPTION_ID_AFONLY, afOnly ? 1 : 0, 4);
        }

        @Override
        public void setAckTimeout(int timeout) {
            id.setOption("ACK_TIMEOUT", Rdmacm.OPTION_ID_ACK_TIMEOUT, timeout, 1);
        }

        /**
         * Kept by the id and written into its QP's RTR attributes (IB, RoCE); librdmacm has no option for it.
         * iWARP has no RNR NAK: there the value has no effect, as on jrdma's own iWARP devices.
         */
        @Override
        public void setMinRnrTimer(int code) {
            id.minRnrTimer(code);
        }

        @Override
        public void setLocalEce(Ece ece) {
            id.setLocalEce(ece);
        }

        @Override
        public Ece remoteEce() {
            return id.remoteEce();
        }

        @Override
        public void rejectEce(byte[] privateData) {
            id.rejectEce(privateData);
        }

        @Override
        public Device device() {
            return cm.device(id.deviceName());
        }

        /**
         * On Linux siw, 251 bytes: siw writes an MPA frame's private-data length through an 8-bit count that
         * also holds the 4-byte MPA v2 IRD/ORD block ({@code siw_send_mpareqrep}), so 252 bytes or more wrap
         * it and the peer refuses the frame (a request never arrives; a reply or reject ends in CONNECT_ERROR
         * -EINVAL), although {@code rdma_connect} takes up to 256 and {@code rdma_accept} up to 252.
         */
        @Override
        public int mpaPrivateDataLimit() {
            Device d = device();
            return d instanceof NativeDevice n && n.linuxSiw() ? SIW_MPA_PRIVATE_DATA : -1;
        }

        @Override
        public InetSocketAddress localAddress() {
            return address(true);
        }

        @Override
        public InetSocketAddress peerAddress() {
            return address(false);
        }

        private InetSocketAddress address(boolean local) {
            try {
                return local ? id.localAddress() : id.peerAddress();
            } catch (IllegalStateException unset) {
                return null; // no address family yet
            }
        }

        @Override
        public void close() {
            id.close();
        }

        @Override
        public String toString() {
            return "rdma_cm_id" + (id.deviceNameOrNull() == null ? "" : " on native:" + id.deviceNameOrNull());
        }
    }
}
