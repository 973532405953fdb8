package io.jrdma.testkit.cm;

import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.cm.ib.RawPeerPath;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Gid;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A raw IB CM peer on the loop fabric: its messages go straight to the device's IB CM as if received from
 * its GID, and what the IB CM sends to that GID comes back through the loop path's {@link RawPeerPath} hook.
 */
final class LoopIbCmPeer implements IbCmPeer {
    private final InetAddress address;
    private final Gid gid;
    private final IbCm cm;
    private final LinkedBlockingQueue<Received> inbox = new LinkedBlockingQueue<>();
    private final AutoCloseable hook;

    LoopIbCmPeer(DeviceImpl device, InetAddress address) {
        this.address = address;
        this.gid = Gid.of(address);
        this.cm = IbCm.of(device);
        this.hook = ((RawPeerPath) device.providerDevice().cmTransport()).attachPeer(gid,
                (source, tid, m) -> inbox.add(new Received(tid, m)));
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public void send(long tid, CmMessage message) {
        cm.receive(gid, tid, message);
    }

    @Override
    public Received receive(Duration wait) {
        try {
            return inbox.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() {
        try {
            hook.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
