package io.jrdma.bench.verbs;

import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.spi.AbstractProviderDevice;
import io.jrdma.spi.CmTransport;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.ProviderQp;
import io.jrdma.spi.RdmaProvider;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.reflect.Constructor;
import java.net.InetAddress;
import java.util.List;

/**
 * A provider device whose transport is infinitely fast: a QP completes every send WQE the moment it
 * is posted, in the posting thread. Benchmarks of core's verbs path ({@code postSend}, the CQ) run
 * against it so that nothing but core is measured. Not registered anywhere: {@link #open()} builds
 * core's device object for it directly.
 */
final class StubDevice extends AbstractProviderDevice {
    private static final DeviceAttributes ATTRIBUTES = new DeviceAttributes("0.0.0", 1, 1, -1L >>> 1, 0, 0, 1024,
            16_384, 6, 1, 1024, 1 << 20, 4096, 1024, 16, 16, AtomicCap.NONE, 0, 0, 0, 0, 64, 1);
    private static final PortAttributes PORT = new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_4096, 1,
            LinkLayer.ETHERNET, 0, 1L << 31, 2, 1);

    /** Core's device object over a new stub (through its package-private constructor). */
    static DeviceImpl open() {
        try {
            Constructor<DeviceImpl> c = DeviceImpl.class.getDeclaredConstructor(RdmaProvider.class,
                    ProviderDevice.class);
            c.setAccessible(true);
            return c.newInstance(null, new StubDevice());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a stub device", e);
        }
    }

    private StubDevice() {
        super("stub0", TransportType.IB, ATTRIBUTES, PORT, List.of(Gid.of(InetAddress.getLoopbackAddress())),
                List.of(), new DeviceCounters("stub0", List.of()));
    }

    @Override
    public boolean supportsQpType(QpType type) {
        return type == QpType.RC;
    }

    @Override
    public boolean supportsOpcode(WrOpcode op) {
        return op == WrOpcode.SEND || op == WrOpcode.RDMA_WRITE;
    }

    @Override
    public ProviderQp createQp(QueuePair qp) {
        return new StubQp(QpImpl.of(qp));
    }

    @Override
    public CmTransport cmTransport() {
        return null;
    }

    /** Completes what is posted at once. */
    private static final class StubQp implements ProviderQp {
        private final QpImpl qp;

        StubQp(QpImpl qp) {
            this.qp = qp;
        }

        @Override
        public void modified(QpState from, QpState to, int mask) {
            // nothing to do
        }

        @Override
        public void sendPosted() {
            long produced = qp.sqProduced();
            while (qp.sqRetired() < produced) {
                SendWqe w = qp.sqSlot(qp.sqRetired());
                qp.completeSend(WcStatus.SUCCESS, (int) w.length);
            }
        }

        @Override
        public void recvPosted() {
            // receives stay posted
        }

        @Override
        public void destroy() {
            // nothing held
        }
    }
}
