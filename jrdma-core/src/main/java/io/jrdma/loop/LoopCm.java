package io.jrdma.loop;

import io.jrdma.internal.cm.ib.LossyCmPath;
import io.jrdma.internal.cm.ib.RawPeerPath;
import io.jrdma.spi.IbCmProvider;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The loop device's IB CM datagram path: CM messages are handed to the receiving device's IB CM in
 * memory. Tests can drop messages through {@link LossyCmPath} to play a silent or lossy peer, and play a
 * raw peer of their own at a non-loopback GID through {@link RawPeerPath}.
 */
final class LoopCm implements IbCmProvider, LossyCmPath, RawPeerPath {
    /** The loop fabric's packet life time: tiny, there is no wire (IB time exponent: 4.096 µs × 2^8 ≈ 1 ms). */
    static final int PACKET_LIFE_TIME = 8;

    private final LoopDevice device;
    private volatile Receiver receiver;
    private volatile Predicate<CmMessage> drop = m -> false;
    private final Map<Gid, Receiver> rawPeers = new ConcurrentHashMap<>();

    LoopCm(LoopDevice device) {
        this.device = device;
    }

    LoopDevice device() {
        return device;
    }

    /** Drops every message {@code filter} matches (tests: a silent peer, a lost RTU). */
    @Override
    public void dropWhen(Predicate<CmMessage> filter) {
        this.drop = filter == null ? m -> false : filter;
    }

    /** The GID of ::1, which the loop device owns as it owns every loopback address. */
    private static final Gid IPV6_LOOPBACK = Gid.of(io.jrdma.internal.net.Ip.loopback(true));

    @Override
    public AutoCloseable attachPeer(Gid gid, Receiver r) {
        if (gid.isLoopback()) {
            throw new IllegalArgumentException("the loop fabric serves every loopback GID: " + gid);
        }
        rawPeers.put(gid, r);
        return () -> rawPeers.remove(gid, r);
    }

    @Override
    public void start(Receiver r) {
        this.receiver = r;
    }

    @Override
    public void send(Gid destination, long tid, CmMessage message) {
        if (device.removed) {
            return; // a removed device sends nothing
        }
        if (drop.test(message)) {
            device.deviceCounters().shared().inc(Counter.CM_DROPPED_MADS);
            return;
        }
        device.deviceCounters().shared().inc(Counter.CM_TX_MADS);
        Receiver raw = rawPeers.isEmpty() ? null : rawPeers.get(destination);
        if (raw != null) {
            raw.receive(device.gids().get(0), tid, message);
            return;
        }
        io.jrdma.internal.verbs.DeviceImpl target = LoopFabric.instance().deviceForGid(destination, device);
        if (target == null || !(target.providerDevice() instanceof LoopDevice ld)) {
            return; // nobody there: the datagram is lost
        }
        Receiver r = ((LoopCm) ld.cmTransport()).receiver;
        if (r != null) {
            ld.deviceCounters().shared().inc(Counter.CM_RX_MADS);
            // The sender's address is the loopback address of the destination's family, as a datagram to
            // ::1 comes from ::1 and one to 127.0.0.1 from 127.0.0.1.
            r.receive(destination.isIpv4Mapped() ? device.gids().get(0) : IPV6_LOOPBACK, tid, message);
        }
    }

    /** Every loopback GID is the loop fabric's one node (its devices answer for all of them). */
    @Override
    public Gid node(Gid gid) {
        return gid.isLoopback() ? device.gids().get(0) : gid;
    }

    @Override
    public int caAckDelay() {
        return 15;
    }

    @Override
    public int packetLifeTime() {
        return PACKET_LIFE_TIME;
    }
}
