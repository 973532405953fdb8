package io.jrdma.siw.cm;

import io.jrdma.siw.SiwDevice;
import io.jrdma.testkit.cm.CmCapability;
import io.jrdma.testkit.cm.CmFixture;
import io.jrdma.testkit.cm.CmMessageKind;
import io.jrdma.testkit.cm.MessageDrop;
import io.jrdma.internal.net.Ip;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.verbs.Rdma;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The siw fixture of the CM suite: both sides on {@code siw0} over 127.0.0.1 (and ::1), or over ::1 (and
 * 127.0.0.1); connections over real TCP with MPA. "Messages sent" counts MPA requests and replies; siw
 * cannot drop them selectively.
 */
final class SiwCmFixture implements CmFixture {
    private static final String DEVICE = "siw0";

    private final SiwDevice device = (SiwDevice) ((DeviceImpl) Rdma.device(DEVICE)).providerDevice();
    private final boolean ipv6;

    /** Over 127.0.0.1, with ::1 as the other family. */
    SiwCmFixture() {
        this(false);
    }

    /** Over ::1 ({@code ipv6}) or 127.0.0.1, with the other loopback address as the other family. */
    SiwCmFixture(boolean ipv6) {
        this.ipv6 = ipv6;
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
    public boolean secondFamily() {
        return ipv6;
    }

    @Override
    public Set<CmCapability> capabilities() {
        return EnumSet.of(CmCapability.IW_CM, CmCapability.DUAL_STACK);
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
