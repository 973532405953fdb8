package io.jrdma.kernel;

import io.jrdma.testkit.Endpoint;
import io.jrdma.testkit.EndpointPair;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.ManualConnector;
import io.jrdma.testkit.QpOptions;
import io.jrdma.testkit.VerbsFixture;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;
import org.junit.jupiter.api.Assumptions;

/**
 * The fixture of the verbs conformance suite over a kernel device ({@code native:NAME}): both sides on
 * the same device, each with its own context, connected by hand (the device loops the packets back to
 * itself: rxe through its UDP socket). The GID used is the device's first IPv4-mapped one (on RoCE, index
 * 0 is the link-local GID, which needs IPv6 on the netdev). The features follow the device: iWARP's for
 * an iWARP device, IB's (without responder async events, which Linux rxe does not raise) otherwise, with
 * what Linux's uverbs and, on Linux rxe, rxe and its rdma-core provider do differently
 * ({@link Features#kernelIb}), atomics when the device reports them, SQE and invalidation of regions unless
 * the device is Linux rxe, GIDs that are addresses on RoCE, heap memory if the provider registers it (it does
 * not: the kernel reaches regions by address).
 *
 * <p>Where the device is absent (a host without RDMA devices) every test is skipped with the provider's
 * reason. Kernel iWARP QPs reach RTS only through the iWARP CM, so on siw the tests that need a connected
 * pair are skipped too.
 */
final class NativeVerbsFixture implements VerbsFixture {
    private final Device device;
    private final Features features;
    private final int gidIndex;
    private final Gid gid;

    NativeVerbsFixture(String name) {
        Device d = null;
        try {
            d = Rdma.device("native:" + name);
        } catch (RuntimeException e) {
            Assumptions.abort("native:" + name + " is not here: " + e.getMessage());
        }
        device = d;
        NativeVerbsFixture known = KNOWN.get(name);
        if (known != null) {
            features = known.features;
            gidIndex = known.gidIndex;
            gid = known.gid;
            return;
        }
        try (Context c = device.open()) {
            DeviceAttributes attrs = c.queryDevice();
            int inline = attrs.maxInlineData();
            boolean heap = takesHeapMemory(c);
            if (device.transport() == TransportType.IWARP) {
                // A kernel iWARP QP reaches RTS only through the iWARP CM (siw needs the connection's socket),
                // and libsiw takes receives in any state.
                features = Features.iwarp(inline).with(true, heap).kernelIwarp();
            } else {
                boolean atomics = attrs.atomicCap() != AtomicCap.NONE;
                // Linux rxe invalidates only fast-registration regions (rxe_invalidate_mr), which verbs
                // programs cannot make through ibv_reg_mr: LOCAL_INV and SEND_WITH_INV of a region fail.
                boolean notRxe = attrs.vendorId() != RXE_VENDOR_ID;
                // On RoCE the GIDs are the netdev's IP addresses; an InfiniBand GID is not an IP address.
                boolean roce = c.queryPort(1).linkLayer() == LinkLayer.ETHERNET;
                features = new Features(true, true, true, atomics, true, notRxe, notRxe, true, true, false, true, true,
                        false, true, notRxe, heap, inline, true, true, roce, true, true, true, true).kernelIb(!notRxe);
            }
            int len = c.queryPort(1).gidTableLength();
            int idx = 0;
            Gid g = null;
            for (int i = 0; i < len; i++) {
                try {
                    Gid cand = c.queryGid(1, i);
                    if (cand.isIpv4Mapped()) {
                        idx = i;
                        g = cand;
                        break;
                    }
                    if (g == null && !cand.equals(Gid.ZERO)) {
                        idx = i;
                        g = cand;
                    }
                } catch (IllegalArgumentException e) {
                    // an empty GID table entry
                }
            }
            gidIndex = idx;
            gid = g == null ? Gid.ZERO : g;
        }
        KNOWN.put(name, this);
    }

    /** The vendor id Linux rxe reports (IBTA's "no OUI"): a failed UC/UD send moves its QP to ERR, not SQE. */
    private static final int RXE_VENDOR_ID = 0xFFFFFF;

    /** Whether the device's provider registers heap memory: the provider says so by refusing it. */
    private static boolean takesHeapMemory(Context c) {
        try (io.jrdma.verbs.ProtectionDomain pd = c.allocPd();
                io.jrdma.verbs.MemoryRegion mr = pd.registerMemory(java.lang.foreign.MemorySegment.ofArray(
                        new byte[64]), io.jrdma.verbs.Access.LOCAL_WRITE)) {
            return mr.isValid();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** What the first fixture of each device found (features, GID): the device does not change. */
    private static final java.util.Map<String, NativeVerbsFixture> KNOWN =
            new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public Device device() {
        return device;
    }

    @Override
    public Features features() {
        return features;
    }

    @Override
    public EndpointPair connect(QpOptions options) {
        requireManualConnect();
        Endpoint a = ManualConnector.open(device, options);
        Endpoint b = null;
        try {
            b = ManualConnector.open(device, options);
            return connect(a, b, options);
        } catch (RuntimeException e) {
            closeQuietly(a, e);
            closeQuietly(b, e);
            throw e;
        }
    }

    @Override
    public EndpointPair connect(QpOptions options, Endpoint shareWith) {
        requireManualConnect();
        Endpoint a = ManualConnector.open(device, options);
        Endpoint b = null;
        try {
            b = ManualConnector.openSharing(shareWith, options);
            return connect(a, b, options);
        } catch (RuntimeException e) {
            closeQuietly(a, e);
            closeQuietly(b, e);
            throw e;
        }
    }

    private void requireManualConnect() {
        Assumptions.assumeTrue(device.transport() != TransportType.IWARP, "kernel iWARP QPs (" + device.name()
                + ") reach RTS only through the iWARP connection manager (rdma_cm), not by ibv_modify_qp");
    }

    /** As {@link ManualConnector#connect}, with this device's GID index in the address vector. */
    private EndpointPair connect(Endpoint a, Endpoint b, QpOptions o) {
        bringUp(a.qp(), o, b.qp().qpNum());
        bringUp(b.qp(), o, a.qp().qpNum());
        if (o.type() == QpType.UD) {
            AddressHandle toB = a.pd().createAh(ah());
            AddressHandle toA = b.pd().createAh(ah());
            a.udPeer(toB, b.qp().qpNum(), o.qkey());
            b.udPeer(toA, a.qp().qpNum(), o.qkey());
            a.onClose(toB);
            b.onClose(toA);
        }
        return new EndpointPair(a, b);
    }

    private AhAttr ah() {
        return new AhAttr(gid, gidIndex, 0, 64, 0, 0, 1, 0);
    }

    private void bringUp(QueuePair qp, QpOptions o, int peerQpn) {
        ManualConnector.toInit(qp, o);
        QpAttr a = new QpAttr().qpState(QpState.RTR);
        if (o.type() != QpType.UD) {
            a.ahAttr(ah()).pathMtu(ManualConnector.PATH_MTU).destQpNum(peerQpn).rqPsn(ManualConnector.START_PSN);
        }
        if (o.type() == QpType.RC) {
            a.maxDestRdAtomic(o.maxDestRdAtomic()).minRnrTimer(o.minRnrTimer());
        }
        qp.modify(a);
        ManualConnector.toRts(qp, o);
    }

    private static void closeQuietly(Endpoint e, RuntimeException failure) {
        if (e == null) {
            return;
        }
        try {
            e.close();
        } catch (RuntimeException suppressed) {
            failure.addSuppressed(suppressed);
        }
    }
}
