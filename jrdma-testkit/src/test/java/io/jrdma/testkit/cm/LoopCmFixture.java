package io.jrdma.testkit.cm;

import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.cm.ib.IbCmCounters;
import io.jrdma.internal.cm.ib.LossyCmPath;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Rdma;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loop provider's fixture: both sides on {@code loop0} over 127.0.0.1 (and ::1), or over ::1 (and
 * 127.0.0.1), the IB CM carried in memory. Messages are dropped through the loop device's
 * {@link LossyCmPath}.
 */
final class LoopCmFixture implements CmFixture {
    private static final String DEVICE = "loop0";

    private final DeviceImpl device = (DeviceImpl) Rdma.device(DEVICE);
    private final boolean ipv6;

    /** Over 127.0.0.1, with ::1 as the other family. */
    LoopCmFixture() {
        this(false);
    }

    /** Over ::1 ({@code ipv6}) or 127.0.0.1, with the other loopback address as the other family. */
    LoopCmFixture(boolean ipv6) {
        this.ipv6 = ipv6;
    }

    @Override
    public boolean secondFamily() {
        return ipv6;
    }

    @Override
    public List<String> deviceNames() {
        return List.of(DEVICE);
    }

    @Override
    public InetAddress address() {
        return Ip.loopback(ipv6);
    }

    @Override
    public InetAddress otherFamilyAddress() {
        return Ip.loopback(!ipv6);
    }

    @Override
    public Set<CmCapability> capabilities() {
        return EnumSet.of(CmCapability.UD_SIDR, CmCapability.CONNECT_RESPONSE, CmCapability.ECE,
                CmCapability.TIMEWAIT_EXIT, CmCapability.DROP_MESSAGES, CmCapability.DUAL_STACK,
                CmCapability.MULTICAST, CmCapability.DEVICE_REMOVAL, CmCapability.RAW_IB_CM_PEER,
                CmCapability.IB_PORT_SPACE);
    }

    /**
     * Raw peers at 198.51.100.1, .2 ... (TEST-NET-2), or at 2001:db8::1, ::2 ... (the IPv6 documentation
     * prefix) over IPv6: GIDs the loop fabric does not serve, of the fixture's own family.
     */
    @Override
    public IbCmPeer ibCmPeer(int index) {
        byte[] raw = ipv6
                ? new byte[] {0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) (1 + index)}
                : new byte[] {(byte) 198, 51, 100, (byte) (1 + index)};
        try {
            return new LoopIbCmPeer(device, InetAddress.getByAddress(raw));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public AutoCloseable cmResponseTimeout(int exponent) {
        IbCm cm = IbCm.of(device);
        int was = cm.cmResponseTimeout();
        cm.cmResponseTimeout(exponent);
        return () -> cm.cmResponseTimeout(was);
    }

    @Override
    public long messagesSent() {
        IbCmCounters c = IbCm.of(device).counters();
        long n = 0;
        for (int attr = CmMessage.ATTR_REQ; attr <= CmMessage.ATTR_SIDR_REP; attr++) {
            n += c.get(IbCmCounters.Group.TX_MSGS, attr);
        }
        return n;
    }

    @Override
    public int connectionStates() {
        return IbCm.of(device).stateCount();
    }

    private LossyCmPath path() {
        return (LossyCmPath) device.providerDevice().cmTransport();
    }

    @Override
    public MessageDrop drop(Set<CmMessageKind> kinds, int count) {
        Set<CmMessageKind> k = EnumSet.copyOf(kinds);
        AtomicInteger left = new AtomicInteger(count);
        AtomicInteger dropped = new AtomicInteger();
        path().dropWhen(m -> {
            if (!k.contains(kindOf(m)) || left.get() <= 0) {
                return false;
            }
            left.decrementAndGet();
            dropped.incrementAndGet();
            return true;
        });
        return new MessageDrop() {
            @Override
            public int dropped() {
                return dropped.get();
            }

            @Override
            public void close() {
                path().dropWhen(null);
            }
        };
    }

    private static CmMessageKind kindOf(CmMessage m) {
        return switch (m.attributeId()) {
            case CmMessage.ATTR_REQ -> CmMessageKind.REQ;
            case CmMessage.ATTR_REP -> CmMessageKind.REP;
            case CmMessage.ATTR_RTU -> CmMessageKind.RTU;
            case CmMessage.ATTR_REJ -> CmMessageKind.REJ;
            case CmMessage.ATTR_MRA -> CmMessageKind.MRA;
            case CmMessage.ATTR_DREQ -> CmMessageKind.DREQ;
            case CmMessage.ATTR_DREP -> CmMessageKind.DREP;
            case CmMessage.ATTR_SIDR_REQ -> CmMessageKind.SIDR_REQ;
            default -> CmMessageKind.SIDR_REP;
        };
    }

    @Override
    public AutoCloseable removeDevice() {
        device.unregister();
        return device::reregister;
    }

    @Override
    public void close() {
        path().dropWhen(null);
        device.reregister();
    }
}
