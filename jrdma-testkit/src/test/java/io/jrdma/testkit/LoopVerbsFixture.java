package io.jrdma.testkit;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;

/**
 * The loop provider's fixture: both sides on {@code loop0}, each with its own context, connected by
 * hand with {@link ManualConnector} (the loop provider has no wire, so QPNs and GIDs are simply
 * passed across).
 */
final class LoopVerbsFixture implements VerbsFixture {
    /** The loop provider's largest inline payload ({@code LoopDevice.MAX_INLINE}). */
    static final int MAX_INLINE = 256;

    private final Device device = Rdma.device("loop0");

    @Override
    public Device device() {
        return device;
    }

    @Override
    public Features features() {
        return Features.ibTransport(MAX_INLINE);
    }

    @Override
    public EndpointPair connect(QpOptions options) {
        Endpoint a = ManualConnector.open(device, options);
        Endpoint b = null;
        try {
            b = ManualConnector.open(device, options);
            return ManualConnector.connect(a, b, options);
        } catch (RuntimeException e) {
            closeQuietly(a, e);
            closeQuietly(b, e);
            throw e;
        }
    }

    @Override
    public EndpointPair connect(QpOptions options, Endpoint shareWith) {
        Endpoint a = ManualConnector.open(device, options);
        Endpoint b = null;
        try {
            b = ManualConnector.openSharing(shareWith, options);
            return ManualConnector.connect(a, b, options);
        } catch (RuntimeException e) {
            closeQuietly(a, e);
            closeQuietly(b, e);
            throw e;
        }
    }

    private static void closeQuietly(Endpoint e, RuntimeException failure) {
        if (e == null) {
            return;
        }
        try {
            e.close();
        } catch (Exception suppressed) {
            failure.addSuppressed(suppressed);
        }
    }
}
