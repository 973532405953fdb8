package io.jrdma.internal.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmState;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RejectReason;
import io.jrdma.cm.UdParam;
import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.cm.ib.IbCmEvent;
import io.jrdma.internal.cm.ib.IbCmId;
import io.jrdma.internal.cm.ib.IbCmState;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.spi.IbCmProvider;
import io.jrdma.spi.ibcm.CmPath;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.Rtu;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * rdma_cm over the IB CM ({@code cma.c}'s IB half: {@code cma_connect_ib}, {@code cma_resolve_ib_udp},
 * {@code cma_ib_req_handler}, {@code cma_ib_handler}, {@code cma_accept_ib}, {@code cma_rep_recv},
 * the SIDR handlers). Private data of REQ and SIDR_REQ starts with rdma_cm's 36-byte header.
 */
final class IbCmaBackend implements CmBackend {
    private static final System.Logger LOG = System.getLogger("io.jrdma.cm");

    /** {@code IB_MULTICAST_QPN}: the QPN datagrams to a multicast group are sent to. */
    static final int MULTICAST_QPN = 0xFFFFFF;
    private final DeviceImpl device;
    private final IbCm ibcm;
    private final IbCmProvider port;
    /** rdma_cm listeners per service ID on this device: several ids may share one (different addresses). */
    private final Map<Long, List<CmIdImpl>> listeners = new ConcurrentHashMap<>();
    private final Map<Long, IbCmId> serviceIds = new ConcurrentHashMap<>();

    IbCmaBackend(DeviceImpl device, IbCmProvider port) {
        this.device = device;
        this.port = port;
        this.ibcm = IbCm.of(device);
    }

    /**
     * TCP and UDP, and the IB port space (RDMA_PS_IB, service IDs 0x013F_xxxx), where as in cma.c the
     * id's QP type decides: a UD id resolves with SIDR, an RC or UC id connects with REQ/REP/RTU, and
     * one listener answers both.
     */
    @Override
    public boolean supports(PortSpace ps) {
        return ps == PortSpace.TCP || ps == PortSpace.UDP || ps == PortSpace.IB;
    }

    @Override
    public int maxConnectPrivateData(CmIdImpl id) {
        return connectLimit(id.qpType());
    }

    /** The private data a connect of {@code type} takes on IB and RoCE: the (SIDR) REQ's, less rdma_cm's header. */
    static int connectLimit(QpType type) {
        return type == QpType.UD ? CmaHeader.SIDR_REQ_USER_LIMIT : CmaHeader.REQ_USER_LIMIT;
    }

    @Override
    public int maxAcceptPrivateData(CmIdImpl id) {
        return acceptLimit(id.qpType());
    }

    /** The private data an accept of {@code type} takes on IB and RoCE: the REP's or SIDR_REP's. */
    static int acceptLimit(QpType type) {
        return type == QpType.UD ? SidrRep.PRIVATE_DATA_LIMIT : Rep.PRIVATE_DATA_LIMIT;
    }

    @Override
    public int maxRejectPrivateData(CmIdImpl id) {
        return rejectLimit(id.qpType());
    }

    /** The private data a reject of {@code type} takes on IB and RoCE: the REJ's or SIDR_REP's. */
    static int rejectLimit(QpType type) {
        return type == QpType.UD ? SidrRep.PRIVATE_DATA_LIMIT : Rej.PRIVATE_DATA_LIMIT;
    }

    private int packetLifeTime(CmIdImpl id) {
        // cma_resolve_iboe_route: the ACK timeout, when set before route resolution, sets the packet
        // life time to timeout - 1; otherwise CMA_IBOE_PACKET_LIFETIME.
        int t = id.options.ackTimeout();
        return t > 0 ? t - 1 : port.packetLifeTime();
    }

    @Override
    public UdParam joinMulticast(CmIdImpl id, Gid mgid, InetAddress group) {
        boolean ipv6 = group instanceof Inet6Address;
        if (ipv6 && device.providerDevice().linkLayer() == LinkLayer.ETHERNET) {
            // cma_iboe_join_multicast: RoCEv2 (ROCE_UDP_ENCAP GIDs) joins IPv4 groups only.
            throw new RdmaException(Errno.EOPNOTSUPP, "[cm] " + device.name()
                    + ": RoCEv2 multicast takes IPv4 groups, not " + group.getHostAddress());
        }
        // cma_iboe_join_multicast: an IPv4 group on RoCEv2 gets hop limit 64 (IPV6_DEFAULT_HOPLIMIT),
        // anything else 1; the Q_Key of the UDP port space is RDMA_UDP_QKEY (cma_set_qkey).
        int hopLimit = ipv6 ? 1 : 64;
        AhAttr ah = new AhAttr(mgid, 0, 0, hopLimit, Math.max(0, id.options.tos()), 0, 1, 0);
        return new UdParam(null, ah, MULTICAST_QPN, CmIdImpl.RDMA_UDP_QKEY);
    }

    @Override
    public Route resolveRoute(CmIdImpl id) {
        InetSocketAddress l = id.localAddress();
        InetSocketAddress r = id.peerAddress();
        int tos = Math.max(0, id.options.tos());
        // cma_get_roce_udp_flow_label: derived from the rdma_cm ports.
        int flowLabel = (l.getPort() * 31 + r.getPort()) & 0xFFFFF;
        Mtu mtu = device.portAttributes().activeMtu();
        return new Route(Gid.of(l.getAddress()), Gid.of(r.getAddress()), mtu, packetLifeTime(id), tos, 64, flowLabel,
                tos >> 5);
    }

    // ------------------------------------------------------------------------------------------ listen

    @Override
    public synchronized void listen(CmIdImpl id, int backlog) {
        long sid = id.portSpace().serviceId(id.localPort());
        List<CmIdImpl> l = listeners.computeIfAbsent(sid, k -> new CopyOnWriteArrayList<>());
        if (l.isEmpty()) {
            IbCmId ib = ibcm.createId(this::onListenEvent, sid);
            ibcm.listen(ib, sid);
            serviceIds.put(sid, ib);
        }
        l.add(id);
    }

    @Override
    public synchronized void stopListen(CmIdImpl id) {
        long sid = id.portSpace().serviceId(id.localPort());
        List<CmIdImpl> l = listeners.get(sid);
        if (l != null && l.remove(id) && l.isEmpty()) {
            listeners.remove(sid);
            IbCmId ib = serviceIds.remove(sid);
            if (ib != null) {
                ibcm.destroy(ib);
            }
        }
    }

    /** cma_match_private_data: the listener bound to the REQ's destination address, else a wildcard one. */
    private CmIdImpl matchListener(long sid, InetAddress dst) {
        List<CmIdImpl> l = listeners.get(sid);
        if (l == null) {
            return null;
        }
        CmIdImpl wildcard = null;
        for (CmIdImpl c : l) {
            InetAddress bound = c.localAddress().getAddress();
            if (bound.equals(dst)) {
                return c;
            }
            if (bound.isAnyLocalAddress() && (!c.options.afOnly()
                    || (bound instanceof java.net.Inet6Address) == (dst instanceof java.net.Inet6Address))) {
                wildcard = c;
            }
        }
        return wildcard;
    }

    private void onListenEvent(IbCmId listenIb, IbCmEvent e) {
        switch (e.type()) {
            case REQ_RECEIVED -> onReq(e.newId(), (Req) e.message());
            case SIDR_REQ_RECEIVED -> onSidrReq(e.newId(), (SidrReq) e.message());
            default -> {
                // listeners see nothing else
            }
        }
    }

    /**
     * {@code cma_check_req_qp_type}: whether {@code listener} takes a request for a {@code type} QP — its
     * own type, or any on the IB port space, whose listener serves RC and UD ids alike (see
     * {@link #supports}). Checked before the request is counted against the backlog: a SIDR_REQ naming an RC
     * listener's service ID, say, is refused there and then.
     */
    private static boolean takes(CmIdImpl listener, QpType type) {
        return type != null && (type == listener.qpType() || listener.portSpace() == PortSpace.IB);
    }

    /** The QP type a REQ asks for ({@code cm_req_get_qp_type}); null for RD and XRC, which jrdma does not do. */
    private static QpType requestedType(Req req) {
        return switch (req.transportServiceType()) {
            case Req.TRANSPORT_RC -> QpType.RC;
            case Req.TRANSPORT_UC -> QpType.UC;
            default -> null;
        };
    }

    /**
     * The REQ's path MTU if this port can carry it, else null: an IBTA MTU code (1 = 256 .. 5 = 4096) no
     * larger than the port's maximum. A QP refuses a larger one (rxe_qp_chk_attr), so such a request could
     * never be accepted; it is rejected with IB_CM_REJ_INVALID_MTU instead of reaching the application.
     */
    private Mtu pathMtu(Req req) {
        for (Mtu m : Mtu.values()) {
            if (m.value() == req.pathMtu()) {
                return m.bytes() <= device.portAttributes().maxMtu().bytes() ? m : null;
            }
        }
        return null;
    }

    /** Rejects a request the backend refuses before it reaches a listener, and forgets it. */
    private void refuse(IbCmId ib, RejectReason reason) {
        ibcm.sendRej(ib, reason.value(), null);
        ibcm.destroy(ib); // as cm.c destroys the cm_id of a request its listener refused
    }

    /**
     * A new request's id whose setup failed: destroyed, which rejects the request and gives its place in the
     * backlog back; the failure goes on to the IB CM, which logs it.
     */
    private static RuntimeException abandon(CmIdImpl child, RuntimeException e) {
        child.setTransport(null);
        child.destroyNoWait();
        return e;
    }

    private void onReq(IbCmId ib, Req req) {
        Optional<CmaHeader> hdr = CmaHeader.decode(req.privateData());
        long sid = req.serviceId();
        PortSpace ps = PortSpace.ofServiceId(sid);
        CmIdImpl listener = hdr.isPresent() ? matchListener(sid, hdr.get().destinationAddress()) : null;
        if (listener == null || ps == null) {
            // A listener has the service ID but none takes the REQ's address (an IPv6 request on an IPv4
            // or AFONLY id, a specific address that differs): cma_ib_req_handler fails, and cm.c destroys
            // the REQ_RCVD id with a consumer-defined REJ (measured on Linux 6.1: ucmatose -s fd00:4::15
            // against an IPv4 listener gets REJECTED, error 28). No listener at all is the IB CM's REJ 8.
            refuse(ib, RejectReason.CONSUMER_DEFINED);
            return;
        }
        QpType type = requestedType(req);
        if (!takes(listener, type)) {
            // cma_ib_req_handler returns -EINVAL, and cm.c's cm_destroy_id rejects the REQ as the consumer's.
            refuse(ib, RejectReason.CONSUMER_DEFINED);
            return;
        }
        Mtu mtu = pathMtu(req);
        if (mtu == null) {
            refuse(ib, RejectReason.INVALID_MTU);
            return;
        }
        CmaHeader h = hdr.get();
        InetSocketAddress local = new InetSocketAddress(h.destinationAddress(), PortSpace.portOfServiceId(sid));
        InetSocketAddress remote = new InetSocketAddress(h.sourceAddress(), h.sourcePort());
        CmIdImpl child = listener.newRequestId(device, local, remote, type);
        if (child == null) {
            // Backlog full: rejected (not a consumer reject) and counted on the listener. SPEC wins
            // over Linux here: ucma's backlog check makes cma destroy the id with -ENOMEM, and cm.c
            // then drops the REQ silently so that the peer's retry may find room; SPEC asks for a
            // reject the peer sees at once.
            refuse(ib, RejectReason.NO_RESOURCES);
            return;
        }
        child.setTransport(ib);
        try {
            ib.setHandler((i, ev) -> onConnEvent(child, ev), child);
            Ece remoteEce = new Ece(req.vendorId(), req.eceOptions());
            child.negotiate(n -> n.withRemote(req.localQpn(), req.startingPsn())
                    .withRetries(req.retryCount(), req.rnrRetryCount())
                    .withLocalAckTimeout(Math.max(req.primaryPath().localAckTimeout(), 1)).withRemoteEce(remoteEce));
            CmPath p = req.primaryPath();
            child.route(new Route(p.remoteGid(), p.localGid(), mtu, Math.max(0, p.localAckTimeout() - 1),
                    p.trafficClass(), p.hopLimit(), p.flowLabel(), p.sl()));
            byte[] pd = req.privateData().toByteArray();
            byte[] user = java.util.Arrays.copyOfRange(pd, CmaHeader.LENGTH, pd.length);
            // cm_format_req_event: the local view — initiator depth = the remote's responder resources. The
            // wire's 8-bit depths are capped at what this device's QPs take (max_qp_rd_atom and
            // max_qp_init_rd_atom, 128 on rxe): an application that answers with the depths the request
            // carried, as rping does, then has a QP that accepts them. Linux reports them as they came.
            int responder = Math.min(req.initiatorDepth(), device.attributes().maxQpRdAtom());
            int initiator = Math.min(req.responderResources(), device.attributes().maxQpInitRdAtom());
            child.requestEvent(0, new ConnParam(user, responder, initiator, req.endToEndFlowControl(),
                    req.retryCount(), req.rnrRetryCount(), req.srq(), req.localQpn()), null, remoteEce);
        } catch (RuntimeException e) {
            throw abandon(child, e);
        }
    }

    private void onSidrReq(IbCmId ib, SidrReq req) {
        Optional<CmaHeader> hdr = CmaHeader.decode(req.privateData());
        long sid = req.serviceId();
        CmIdImpl listener = hdr.isPresent() ? matchListener(sid, hdr.get().destinationAddress()) : null;
        if (listener == null || !takes(listener, QpType.UD)) {
            // The SIDR_REP echoes the requester's request id, or the requester cannot match it. No listener:
            // IB_SIDR_UNSUPPORTED; a listener of connected QPs: cma_ib_req_handler's -EINVAL, which cm.c
            // answers with IB_SIDR_REJECT.
            int status = listener == null ? SidrRep.STATUS_UNSUPPORTED : SidrRep.STATUS_REJECT;
            ibcm.sendSidrRep(ib, new SidrRep(ibcm.remoteId(ib), status, Octets.empty(), 0, 0, sid, 0, 0,
                    Octets.empty()));
            ibcm.destroy(ib);
            return;
        }
        CmaHeader h = hdr.get();
        InetSocketAddress local = new InetSocketAddress(h.destinationAddress(), PortSpace.portOfServiceId(sid));
        InetSocketAddress remote = new InetSocketAddress(h.sourceAddress(), h.sourcePort());
        CmIdImpl child = listener.newRequestId(device, local, remote, QpType.UD);
        if (child == null) {
            ibcm.sendSidrRep(ib, new SidrRep(ibcm.remoteId(ib), SidrRep.STATUS_REJECT, Octets.empty(), 0, 0, sid, 0,
                    0, Octets.empty()));
            ibcm.destroy(ib);
            return;
        }
        child.setTransport(ib);
        try {
            ib.setHandler((i, ev) -> onConnEvent(child, ev), child);
            child.route(new Route(Gid.of(local.getAddress()), ib.remoteGid(), device.portAttributes().activeMtu(),
                    port.packetLifeTime(), 0, 64, 0, 0));
            byte[] pd = req.privateData().toByteArray();
            byte[] user = java.util.Arrays.copyOfRange(pd, CmaHeader.LENGTH, pd.length);
            child.requestEvent(0, null, new UdParam(user, AhAttr.to(ib.remoteGid()), 0, 0), Ece.NONE);
        } catch (RuntimeException e) {
            throw abandon(child, e);
        }
    }

    // ------------------------------------------------------------------------------------------ connect

    @Override
    public void connect(CmIdImpl id, ConnParam param, Ece ece, Duration timeout) {
        Route r = id.route();
        InetSocketAddress l = id.localAddress();
        InetSocketAddress rem = id.peerAddress();
        long sid = id.portSpace().serviceId(rem.getPort());
        CmaHeader hdr = CmaHeader.of(l.getAddress(), l.getPort(), rem.getAddress());
        IbCmId ib = ibcm.createId((i, ev) -> onConnEvent(id, ev), id);
        id.setTransport(ib);
        if (id.qpType() == QpType.UD) {
            SidrReq req = new SidrReq(ib.localId(), 0xFFFF, sid, hdr.prependTo(param.privateData(),
                    SidrReq.PRIVATE_DATA_LIMIT));
            // rdma_cm's SIDR_REQ timeout comes from CMA_CM_RESPONSE_TIMEOUT too.
            long t = IbCm.toMs(ibcm.cmResponseTimeout());
            int retries = IbCm.MAX_CM_RETRIES;
            ibcm.sendSidrReq(ib, r.dgid(), req, t, retries);
        } else {
            QpImpl qp = id.qpImpl();
            int qpn = qp != null ? qp.qpNum() : param.qpNum();
            int plt = r.packetLifeTime();
            // cm_ack_timeout: the local ACK timeout from the CA's ACK delay and the packet life time.
            int ackTimeout = id.options.ackTimeout() >= 0 ? id.options.ackTimeout()
                    : Math.min(31, Math.max(port.caAckDelay(), plt + 1));
            id.negotiate(n -> n.withLocalAckTimeout(ackTimeout));
            CmPath path = new CmPath(0xFFFF, 0xFFFF, r.sgid(), r.dgid(), r.flowLabel(), 0, r.trafficClass(),
                    r.hopLimit(), r.sl(), r.hopLimit() <= 1, ackTimeout);
            Req req = new Req(ib.localId(), ece.vendorId(), sid, device.nodeGuid(), 0, qpn, param.responderResources(),
                    0, param.initiatorDepth(), 0, ibcm.cmResponseTimeout(),
                    id.qpType() == QpType.UC ? Req.TRANSPORT_UC : Req.TRANSPORT_RC, param.flowControl(),
                    id.negotiated().localPsn(), ibcm.cmResponseTimeout(), param.retryCount(), 0xFFFF, r.mtu().value(),
                    false,
                    param.rnrRetryCount(), IbCm.MAX_CM_RETRIES, param.srq(), 0, path, CmPath.NONE, false,
                    ece.options(), hdr.prependTo(param.privateData(), Req.PRIVATE_DATA_LIMIT));
            ibcm.sendReq(ib, r.dgid(), req, plt);
        }
        if (timeout != null) {
            ConnectBound.after(timeout, () -> {
                // The caller's bound expired before the CM's own retries: the peer is unreachable,
                // unless its answer won the race (checked and destroyed under the IB CM's lock).
                if (id.transport() == ib && ibcm.destroyIfWaiting(ib)) {
                    id.setTransport(null);
                    id.event(CmEventType.UNREACHABLE, Errno.ETIMEDOUT.status(), null, null, Ece.NONE);
                }
            });
        }
    }

    private void onConnEvent(CmIdImpl id, IbCmEvent e) {
        if (id.transport() != null && e.type() != IbCmEvent.Type.TIMEWAIT_EXIT && id.isDestroyed()) {
            return;
        }
        switch (e.type()) {
            case REP_RECEIVED -> onRep(id, (Rep) e.message());
            case RTU_RECEIVED, USER_ESTABLISHED -> id.event(CmEventType.ESTABLISHED, 0,
                    id.negotiated().established(), null, Ece.NONE);
            case REJ_RECEIVED -> {
                Rej rej = (Rej) e.message();
                id.event(CmEventType.REJECTED, rej.reason(), new ConnParam(rej.privateData().toByteArray(), 0, 0,
                        false, 0, 0, false, 0), null, Ece.NONE);
            }
            case REQ_ERROR, REP_ERROR -> id.event(CmEventType.UNREACHABLE, Errno.ETIMEDOUT.status(), null, null,
                    Ece.NONE);
            case DREQ_RECEIVED, DREP_RECEIVED, DREQ_ERROR -> {
                if (id.compareAndSetState(CmState.CONNECT, CmState.DISCONNECT)) {
                    id.event(CmEventType.DISCONNECTED, e.type() == IbCmEvent.Type.DREQ_ERROR
                            ? Errno.ETIMEDOUT.status() : 0, null, null, Ece.NONE);
                }
            }
            case TIMEWAIT_EXIT -> id.event(CmEventType.TIMEWAIT_EXIT, 0, null, null, Ece.NONE);
            case SIDR_REP_RECEIVED -> onSidrRep(id, (SidrRep) e.message());
            case SIDR_REQ_ERROR -> id.event(CmEventType.UNREACHABLE, Errno.ETIMEDOUT.status(), null, null,
                    Ece.NONE);
            default -> {
                // MRA: the answer comes later
            }
        }
    }

    private void onRep(CmIdImpl id, Rep rep) {
        IbCmId ib = id.transport(IbCmId.class);
        // cm_rep_handler: ORD = the remote's responder resources, IRD = its initiator depth.
        id.negotiate(n -> n.withRemote(rep.localQpn(), rep.startingPsn()).withPeerIrd(rep.responderResources())
                .withDepths(Math.min(n.responderResources(), Math.max(rep.initiatorDepth(), n.responderResources())),
                        Math.min(n.initiatorDepth(), rep.responderResources()))
                .withRetries(n.retryCount(), rep.rnrRetryCount())
                .withRemoteEce(new Ece(rep.vendorId(), rep.eceOptions()))
                .withLocalAckTimeout(Math.max(n.localAckTimeout(), rep.targetAckDelay())));
        ConnParam p = new ConnParam(rep.privateData().toByteArray(), rep.initiatorDepth(), rep.responderResources(),
                rep.endToEndFlowControl(), id.negotiated().retryCount(), rep.rnrRetryCount(), rep.srq(),
                rep.localQpn());
        if (id.qpImpl() == null) {
            // The user does its own QP transitions: CONNECT_RESPONSE, then accept(null) sends the RTU.
            id.awaitEstablish();
            id.event(CmEventType.CONNECT_RESPONSE, 0, p, null, id.negotiated().remoteEce());
            return;
        }
        try {
            id.modifyQpRts();
        } catch (RuntimeException ex) {
            // cma_rep_recv failed: reject the reply and report CONNECT_ERROR.
            LOG.log(System.Logger.Level.DEBUG, "[cm " + id.handle + "] QP transition on REP failed: " + ex);
            ibcm.sendRej(ib, RejectReason.CONSUMER_DEFINED.value(), null);
            id.event(CmEventType.CONNECT_ERROR, Errno.EINVAL.status(), null, null, Ece.NONE);
            return;
        }
        ibcm.sendRtu(ib, new Rtu(ib.localId(), ibcm.remoteId(ib), Octets.empty())); // REP_RCVD: under the CM's lock
        id.event(CmEventType.ESTABLISHED, 0, p, null, id.negotiated().remoteEce());
    }

    private void onSidrRep(CmIdImpl id, SidrRep rep) {
        IbCmId ib = id.transport(IbCmId.class);
        id.setTransport(null); // no connection state is kept (cma_sidr_rep_handler destroys the IB CM id)
        ibcm.destroy(ib);
        if (rep.status() != SidrRep.STATUS_VALID) {
            id.event(CmEventType.UNREACHABLE, rep.status(), null, new UdParam(rep.privateData().toByteArray(), null,
                    0, 0), Ece.NONE);
            return;
        }
        id.negotiate(n -> n.withRemoteUd(rep.qpn(), rep.qkey()).withRemoteEce(new Ece(rep.vendorId(),
                rep.eceOptions())));
        Route r = id.route();
        AhAttr ah = new AhAttr(r.dgid(), 0, r.flowLabel(), r.hopLimit(), r.trafficClass(), r.sl(), 1, 0);
        id.event(CmEventType.ESTABLISHED, 0, null, new UdParam(rep.privateData().toByteArray(), ah, rep.qpn(),
                rep.qkey()), id.negotiated().remoteEce());
    }

    // ------------------------------------------------------------------------------------------ accept etc.

    @Override
    public void accept(CmIdImpl id, ConnParam param, Ece ece) {
        IbCmId ib = id.transport(IbCmId.class);
        QpImpl qp = id.qpImpl();
        if (id.qpType() == QpType.UD) {
            int qpn = qp != null ? qp.qpNum() : param.qpNum();
            ibcm.sendSidrRep(ib, new SidrRep(ibcm.remoteId(ib), SidrRep.STATUS_VALID, Octets.empty(), ece.vendorId(),
                    qpn, ib == null ? 0 : serviceOf(id), CmIdImpl.RDMA_UDP_QKEY, ece.options(),
                    Octets.of(param.privateData())));
            // SPEC rule 2: no connection state is kept once the SIDR exchange is over.
            id.setTransport(null);
            ibcm.destroy(ib);
            return;
        }
        int qpn = qp != null ? qp.qpNum() : param.qpNum();
        Negotiated n = id.negotiated();
        Rep rep = new Rep(ib.localId(), ibcm.remoteId(ib), 0, qpn, ece.vendorId(), 0, n.localPsn(),
                n.responderResources(), n.initiatorDepth(), port.caAckDelay(), 0, param.flowControl(),
                param.rnrRetryCount(), param.srq(), device.nodeGuid(), ece.options(), Octets.of(param.privateData()));
        if (!ibcm.sendRep(ib, rep)) {
            throw ended(id, "accept");
        }
    }

    /** The call answered an exchange the peer had already ended (its REJ, or the IB CM's timeout). */
    private static RdmaException ended(CmIdImpl id, String call) {
        // ib_send_cm_rep / ib_send_cm_rtu in a state the peer left: -EINVAL, as rdma_accept returns it.
        return new RdmaException(Errno.EINVAL, "[cm " + id.handle + "] " + call
                + ": the peer ended the connection request first (reject or timeout)");
    }

    private long serviceOf(CmIdImpl id) {
        return id.portSpace().serviceId(id.localPort());
    }

    @Override
    public void establish(CmIdImpl id) {
        IbCmId ib = id.transport(IbCmId.class);
        if (!ibcm.sendRtu(ib, new Rtu(ib.localId(), ibcm.remoteId(ib), Octets.empty()))) {
            throw ended(id, "accept");
        }
        Negotiated n = id.negotiated();
        id.event(CmEventType.ESTABLISHED, 0, n.established(), null, n.remoteEce());
    }

    @Override
    public void reject(CmIdImpl id, byte[] privateData, int reason) {
        if (!(id.transport() instanceof IbCmId ib)) {
            return;
        }
        if (id.qpType() == QpType.UD) {
            if (ib.state() == IbCmState.SIDR_REQ_RCVD) {
                ibcm.sendSidrRep(ib, new SidrRep(ibcm.remoteId(ib), SidrRep.STATUS_REJECT, Octets.empty(), 0, 0,
                        serviceOf(id), 0, 0, Octets.of(privateData == null ? new byte[0] : privateData)));
            }
            id.setTransport(null);
            ibcm.destroy(ib);
            return;
        }
        ibcm.rejectIfPending(ib, reason, privateData);
    }

    @Override
    public void disconnect(CmIdImpl id) {
        if (id.qpType() == QpType.UD) {
            throw new IllegalStateException("a UD id has no connection to disconnect (EINVAL)");
        }
        if (!(id.transport() instanceof IbCmId ib)) {
            return;
        }
        // rdma_disconnect: a DREQ, or the DREP when the peer's DREQ came first. One step in the IB CM:
        // the peer's DREQ may arrive between a look at the state and the send.
        ibcm.disconnect(ib);
    }

    @Override
    public void notifyEstablished(CmIdImpl id) {
        if (id.transport() instanceof IbCmId ib) {
            ibcm.establish(ib);
        }
    }

    @Override
    public void destroy(CmIdImpl id) {
        stopListen(id);
        if (id.transport() instanceof IbCmId ib) {
            ibcm.destroy(ib);
        }
    }

    /** Listener service IDs (tests). */
    List<Long> listening() {
        return new ArrayList<>(listeners.keySet());
    }
}
