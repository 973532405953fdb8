package io.jrdma.siw.cm;

import io.jrdma.siw.SiwDevice;
import io.jrdma.testkit.cm.CmCapability;
import io.jrdma.testkit.cm.CmFixture;
import io.jrdma.testkit.cm.CmMessageKind;
import io.jrdma.testkit.cm.MessageDrop;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Rdma;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The siw fixture of the CM suite: both sides on {@code siw0} over 127.0.0.1, connections over real
 * TCP with MPA. "Messages sent" counts MPA requests and replies; siw cannot drop them selectively.
 */
final class SiwCmFixture implements CmFixture {
    private static final String DEVICE = "siw0";

    private final SiwDevice device = (SiwDevice) ((DeviceImpl) Rdma.device(DEVICE)).providerDevice();

    @Override
    public List<String> deviceNames() {
        return List.of(DEVICE);
    }

    @Override
    public InetAddress address() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Set<CmCapability> capabilities() {
        return EnumSet.of(CmCapability.IW_CM);
    }

    @Override
    public long messagesSent() {
        return device.counters().mpaFramesSent();
    }

    @Override
    public MessageDrop drop(Set<CmMessageKind> kinds, int count) {
        throw new UnsupportedOperationException("siw cannot drop MPA frames selectively");
    }
}
