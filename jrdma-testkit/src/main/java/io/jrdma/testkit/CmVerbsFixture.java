package io.jrdma.testkit;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A {@link VerbsFixture} that connects RC pairs through the connection manager, for transports whose
 * QPs cannot be wired by hand (iWARP: the connection is the TCP stream the CM hands to the QP). Both
 * endpoints live on one device, one side listening on {@code address}.
 */
public class CmVerbsFixture implements VerbsFixture {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Device device;
    private final Features features;
    private final String address;
    private final RdmaCm cm;
    private final EventChannel channel;
    private final boolean secondFamily;

    /** A fixture on device {@code deviceName}, listening on {@code address} (e.g. 127.0.0.1). */
    public CmVerbsFixture(String deviceName, Features features, String address) {
        this(deviceName, features, address, false);
    }

    /**
     * A fixture on device {@code deviceName}, listening on {@code address}, which repeats the suite in a
     * second address family when {@code secondFamily} (see {@link VerbsFixture#secondFamily()}).
     */
    public CmVerbsFixture(String deviceName, Features features, String address, boolean secondFamily) {
        this.secondFamily = secondFamily;
        this.device = Rdma.device(deviceName);
        this.features = features;
        this.address = address;
        this.cm = RdmaCm.open(deviceName);
        this.channel = cm.createEventChannel();
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public Features features() {
        return features;
    }

    @Override
    public boolean secondFamily() {
        return secondFamily;
    }

    private CmEvent next(CmEventType type) {
        try {
            CmEvent e = channel.getEvent(WAIT);
            if (e == null) {
                throw new AssertionError("no " + type.str() + " within " + WAIT);
            }
            channel.ackEvent(e);
            if (e.type() != type) {
                throw new AssertionError("expected " + type.str() + ", got " + e);
            }
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ie);
        }
    }

    private record Side(Context ctx, ProtectionDomain pd, CompletionQueue cq, CompletionChannel ch,
            SharedReceiveQueue srq) {
    }

    private Side resources(Context ctx, QpOptions o, Endpoint share) {
        if (share != null) {
            return new Side(share.context(), share.pd(), share.cq(), share.channel(), share.srq());
        }
        ProtectionDomain pd = ctx.allocPd();
        CompletionChannel ch = o.channel() ? ctx.createCompletionChannel() : null;
        CompletionQueue cq = ctx.createCq(o.cqDepth(), ch, 0);
        SharedReceiveQueue srq = o.srq() ? pd.createSrq(new SrqAttr(o.srqMaxWr(), o.cap().maxRecvSge(), 0)) : null;
        return new Side(ctx, pd, cq, ch, srq);
    }

    private static Endpoint endpoint(Side s, QueuePair qp, CmId id, boolean owns) {
        return new Endpoint(s.ctx(), s.pd(), s.cq(), s.ch(), s.srq(), qp, () -> {
            try {
                id.destroyQp();
                id.destroy();
            } finally {
                if (owns) {
                    // The CM's context is shared by every pair; what a test left registered stays until
                    // the fixture closes the connection manager (which closes the context).
                    closeIfIdle(s.srq());
                    closeIfIdle(s.cq());
                    closeIfIdle(s.ch());
                    closeIfIdle(s.pd());
                }
            }
        });
    }

    private static void closeIfIdle(AutoCloseable r) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (io.jrdma.verbs.RdmaException busy) {
            // still in use (EBUSY): released with the context
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public EndpointPair connect(QpOptions options) {
        return connect(options, null);
    }

    @Override
    public EndpointPair connect(QpOptions o, Endpoint shareWith) {
        if (o.type() != QpType.RC) {
            throw new IllegalArgumentException("the CM fixture connects RC QPs");
        }
        CmId listener = channel.createId(null, PortSpace.TCP);
        CmId client = null;
        try {
            listener.bind(new InetSocketAddress(address, 0));
            listener.listen(4);
            client = channel.createId(null, PortSpace.TCP);
            client.resolveAddr(null, new InetSocketAddress(address, listener.localPort()), WAIT);
            next(CmEventType.ADDR_RESOLVED);
            client.resolveRoute(WAIT);
            next(CmEventType.ROUTE_RESOLVED);
            Side a = resources(client.verbs(), o, null);
            QueuePair qa = client.createQp(a.pd(), new QpInitAttr(o.type(), a.cq(), a.cq(), a.srq(), o.cap(),
                    o.sqSigAll()));
            client.connect(new ConnParam(null, o.maxDestRdAtomic(), o.maxRdAtomic(), false, o.retryCnt(),
                    o.rnrRetry(), a.srq() != null, 0));
            CmEvent req = next(CmEventType.CONNECT_REQUEST);
            CmId server = req.id();
            // As in the loop fixture, the shared endpoint is the passive (b) side.
            Side b = resources(server.verbs(), o, shareWith);
            QueuePair qb = server.createQp(b.pd(), new QpInitAttr(o.type(), b.cq(), b.cq(), b.srq(), o.cap(),
                    o.sqSigAll()));
            server.accept(new ConnParam(null, o.maxDestRdAtomic(), o.maxRdAtomic(), false, o.retryCnt(),
                    o.rnrRetry(), b.srq() != null, 0));
            next(CmEventType.ESTABLISHED);
            next(CmEventType.ESTABLISHED);
            listener.destroy();
            // The CM gives every connected QP remote read/write; the options may ask for less.
            qa.modify(new QpAttr().qpAccessFlags(o.qpAccess()));
            qb.modify(new QpAttr().qpAccessFlags(o.qpAccess()));
            return new EndpointPair(endpoint(a, qa, client, true), endpoint(b, qb, server, shareWith == null));
        } catch (RuntimeException e) {
            listener.destroy();
            if (client != null) {
                client.destroy();
            }
            throw e;
        }
    }

    @Override
    public void close() {
        cm.close();
    }
}
