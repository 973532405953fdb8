package io.jrdma.rxe;

import io.jrdma.testkit.Endpoint;
import io.jrdma.testkit.EndpointPair;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.ManualConnector;
import io.jrdma.testkit.QpOptions;
import io.jrdma.testkit.VerbsFixture;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;

/**
 * The rxe fixture of the verbs conformance suite: side {@code a} on rxe0 (127.0.0.1), side {@code b}
 * on rxe1 (127.0.0.2), connected by hand ({@link ManualConnector}) as a verbs program would after
 * exchanging QPNs and GIDs; every packet between them crosses real UDP sockets.
 */
final class RxeVerbsFixture implements VerbsFixture {
    private final Device a = Rdma.device("rxe0");
    private final Device b = Rdma.device("rxe1");

    @Override
    public Device device() {
        return a;
    }

    @Override
    public Features features() {
        return Features.ibTransport(RxeDevice.MAX_INLINE);
    }

    @Override
    public EndpointPair connect(QpOptions options) {
        Endpoint ea = ManualConnector.open(a, options);
        Endpoint eb = null;
        try {
            eb = ManualConnector.open(b, options);
            return ManualConnector.connect(ea, eb, options);
        } catch (RuntimeException e) {
            closeQuietly(ea, e);
            closeQuietly(eb, e);
            throw e;
        }
    }

    @Override
    public EndpointPair connect(QpOptions options, Endpoint shareWith) {
        Endpoint ea = ManualConnector.open(a, options);
        Endpoint eb = null;
        try {
            eb = ManualConnector.openSharing(shareWith, options);
            return ManualConnector.connect(ea, eb, options);
        } catch (RuntimeException e) {
            closeQuietly(ea, e);
            closeQuietly(eb, e);
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
