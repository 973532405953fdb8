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
 * on rxe1 (127.0.0.2), or two other devices (the suite over IPv6: two unique-local addresses), connected
 * by hand ({@link ManualConnector}) as a verbs program would after exchanging QPNs and GIDs; every packet
 * between them crosses real UDP sockets.
 */
public final class RxeVerbsFixture implements VerbsFixture {
    private final Device a;
    private final Device b;
    private final boolean secondFamily;

    /** rxe0 and rxe1. */
    RxeVerbsFixture() {
        this("rxe0", "rxe1", false);
    }

    /**
     * Side {@code a} on {@code deviceA}, side {@code b} on {@code deviceB}.
     *
     * @param deviceA the first device
     * @param deviceB the second device
     * @param secondFamily whether the suite repeats in a second address family (see
     *     {@link VerbsFixture#secondFamily()})
     */
    public RxeVerbsFixture(String deviceA, String deviceB, boolean secondFamily) {
        this.a = Rdma.device(deviceA);
        this.b = Rdma.device(deviceB);
        this.secondFamily = secondFamily;
    }

    @Override
    public boolean secondFamily() {
        return secondFamily;
    }

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
