package io.jrdma.testkit;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;

/**
 * Builds endpoints and connects QPs by hand, without a connection manager: the three
 * {@code ibv_modify_qp} calls a verbs program makes after exchanging QPNs and GIDs out of band
 * (RESET→INIT with the access flags, INIT→RTR with the address vector, destination QPN, receive PSN,
 * IRD and minimum RNR timer, RTR→RTS with the ACK timeout, retry counts, send PSN and ORD). Fixtures
 * of providers whose QPs can be connected this way (loop, rxe over in-memory links) use it.
 */
public final class ManualConnector {
    /** The path MTU of hand-connected RC/UC QPs. */
    public static final Mtu PATH_MTU = Mtu.MTU_1024;
    /** The starting PSN of both directions. */
    public static final int START_PSN = 0;

    private ManualConnector() {
    }

    /**
     * Opens a context on {@code device} and creates what {@code o} asks for: a PD, a CQ (with a
     * channel if asked), an SRQ if asked, and a QP in RESET. Closing the endpoint closes them all.
     */
    public static Endpoint open(Device device, QpOptions o) {
        Context ctx = device.open();
        try {
            ProtectionDomain pd = ctx.allocPd();
            CompletionChannel ch = o.channel() ? ctx.createCompletionChannel() : null;
            CompletionQueue cq = ctx.createCq(o.cqDepth(), ch, 0);
            SharedReceiveQueue srq = o.srq() ? pd.createSrq(new SrqAttr(o.srqMaxWr(), o.cap().maxRecvSge(), 0)) : null;
            QueuePair qp = pd.createQp(new QpInitAttr(o.type(), cq, cq, srq, o.cap(), o.sqSigAll()));
            return new Endpoint(ctx, pd, cq, ch, srq, qp, () -> {
                try {
                    qp.close();
                    if (srq != null) {
                        srq.close();
                    }
                } finally {
                    ctx.close();
                }
            });
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    /**
     * A new QP in {@code share}'s context and PD, using its CQ and SRQ; closing the endpoint closes
     * only that QP.
     */
    public static Endpoint openSharing(Endpoint share, QpOptions o) {
        QueuePair qp = share.pd().createQp(new QpInitAttr(o.type(), share.cq(), share.cq(), share.srq(), o.cap(),
                o.sqSigAll()));
        return new Endpoint(share.context(), share.pd(), share.cq(), share.channel(), share.srq(), qp, qp::close);
    }

    /** RESET → INIT with {@code o}'s access flags (RC/UC) or Q_Key (UD). */
    public static void toInit(QueuePair qp, QpOptions o) {
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1);
        if (o.type() == QpType.UD) {
            a.qkey(o.qkey());
        } else {
            a.qpAccessFlags(o.qpAccess());
        }
        qp.modify(a);
    }

    /** INIT → RTR towards {@code peerQpn} at {@code peerGid} (RC/UC), or with nothing more (UD). */
    public static void toRtr(QueuePair qp, QpOptions o, Gid peerGid, int peerQpn) {
        QpAttr a = new QpAttr().qpState(QpState.RTR);
        if (o.type() != QpType.UD) {
            a.ahAttr(AhAttr.to(peerGid)).pathMtu(PATH_MTU).destQpNum(peerQpn).rqPsn(START_PSN);
        }
        if (o.type() == QpType.RC) {
            a.maxDestRdAtomic(o.maxDestRdAtomic()).minRnrTimer(o.minRnrTimer());
        }
        qp.modify(a);
    }

    /** RTR → RTS with {@code o}'s retry settings and ORD (RC), or the send PSN only (UC/UD). */
    public static void toRts(QueuePair qp, QpOptions o) {
        QpAttr a = new QpAttr().qpState(QpState.RTS).sqPsn(START_PSN);
        if (o.type() == QpType.RC) {
            a.timeout(o.timeout()).retryCnt(o.retryCnt()).rnrRetry(o.rnrRetry()).maxRdAtomic(o.maxRdAtomic());
        }
        qp.modify(a);
    }

    /** Brings {@code qp} from RESET to RTS connected to {@code peerQpn} at {@code peerGid}. */
    public static void bringUp(QueuePair qp, QpOptions o, Gid peerGid, int peerQpn) {
        toInit(qp, o);
        toRtr(qp, o, peerGid, peerQpn);
        toRts(qp, o);
    }

    /**
     * Connects two endpoints made by {@link #open}: RC/UC QPs to each other; UD QPs to RTS, each
     * given an address handle to the other.
     */
    public static EndpointPair connect(Endpoint a, Endpoint b, QpOptions o) {
        Gid gidA = a.context().queryGid(1, 0);
        Gid gidB = b.context().queryGid(1, 0);
        bringUp(a.qp(), o, gidB, b.qp().qpNum());
        bringUp(b.qp(), o, gidA, a.qp().qpNum());
        if (o.type() == QpType.UD) {
            AddressHandle toB = a.pd().createAh(AhAttr.to(gidB));
            AddressHandle toA = b.pd().createAh(AhAttr.to(gidA));
            a.udPeer(toB, b.qp().qpNum(), o.qkey());
            b.udPeer(toA, a.qp().qpNum(), o.qkey());
            a.onClose(toB);
            b.onClose(toA);
        }
        return new EndpointPair(a, b);
    }
}
