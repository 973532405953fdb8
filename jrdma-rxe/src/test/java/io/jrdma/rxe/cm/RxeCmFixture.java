package io.jrdma.rxe.cm;

import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.cm.ib.IbCmCounters;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.rxe.RxeDevice;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.testkit.cm.CmCapability;
import io.jrdma.testkit.cm.CmFixture;
import io.jrdma.testkit.cm.CmMessageKind;
import io.jrdma.testkit.cm.IbCmPeer;
import io.jrdma.testkit.cm.MessageDrop;
import io.jrdma.verbs.Rdma;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The rxe fixture of the CM conformance suite: client and server on rxe0 (127.0.0.1), or on rxe6 (::1)
 * for the suite over IPv6 (with rxe0 for the other family of the dual-stack checks); every CM message is
 * a QP1 MAD over UDP, and the QPs the CM connects exchange RoCEv2 packets. Messages are lost on purpose
 * through {@link RxeCm#dropWhen}.
 */
final class RxeCmFixture implements CmFixture {
    private final String deviceName;
    private final DeviceImpl device;
    private final boolean ipv6;

    /** On rxe0, 127.0.0.1. */
    RxeCmFixture() {
        this(false);
    }

    /** On rxe6, ::1 ({@code ipv6}), or rxe0, 127.0.0.1: an rxe device serves one address. */
    RxeCmFixture(boolean ipv6) {
        this.ipv6 = ipv6;
        this.deviceName = ipv6 ? "rxe6" : "rxe0";
        this.device = (DeviceImpl) Rdma.device(deviceName);
    }

    @Override
    public List<String> deviceNames() {
        // Over IPv6, rxe0 (127.0.0.1) beside rxe6 (::1): a wildcard listener listens on both devices, so
        // the dual-stack checks reach it over either family.
        return ipv6 ? List.of(deviceName, "rxe0") : List.of(deviceName);
    }

    @Override
    public InetAddress otherFamilyAddress() {
        return ipv6 ? Ip.loopback(false) : null;
    }

    @Override
    public InetAddress address() {
        return Ip.loopback(ipv6);
    }

    @Override
    public boolean secondFamily() {
        return ipv6;
    }

    @Override
    public Set<CmCapability> capabilities() {
        Set<CmCapability> c = EnumSet.of(CmCapability.UD_SIDR, CmCapability.CONNECT_RESPONSE, CmCapability.ECE,
                CmCapability.TIMEWAIT_EXIT, CmCapability.DROP_MESSAGES, CmCapability.MULTICAST,
                CmCapability.RAW_IB_CM_PEER, CmCapability.IB_PORT_SPACE);
        if (ipv6) {
            // RoCEv2 joins IPv4 groups only (cma_iboe_join_multicast), and an IPv6 device sends no IPv4;
            // the raw peers speak from IPv4 addresses.
            c.remove(CmCapability.MULTICAST);
            c.remove(CmCapability.RAW_IB_CM_PEER);
            c.add(CmCapability.DUAL_STACK);
        }
        return c;
    }

    /** Raw peers on 127.0.0.20, .21 ...: UDP sockets speaking QP1 MADs to rxe0, bytes on the wire. */
    @Override
    public IbCmPeer ibCmPeer(int index) {
        try {
            return new RxeIbCmPeer(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (20 + index)}), address());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int connectionStates() {
        return IbCm.of(device).stateCount();
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

    private RxeCm path() {
        return ((RxeDevice) device.providerDevice()).cm();
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
    public void close() {
        path().dropWhen(null);
    }
}
