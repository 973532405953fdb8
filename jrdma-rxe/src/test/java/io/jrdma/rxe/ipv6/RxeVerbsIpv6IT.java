package io.jrdma.rxe.ipv6;

import io.jrdma.rxe.RxeVerbsFixture;
import io.jrdma.rxe.testing.RxeIpv6Link;
import io.jrdma.testkit.VerbsConformanceSuite;
import io.jrdma.testkit.VerbsFixture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The verbs conformance suite over RoCEv2 in IPv6/UDP (the groups that stay on the host run over IPv4
 * only): side {@code a} on rxe6a
 * ({@value RxeIpv6Link#A}), side {@code b} on rxe6b ({@value RxeIpv6Link#B}); the GIDs are the IPv6
 * addresses themselves and the ICRC covers the IPv6 header. Runs in failsafe's {@code ipv6} execution,
 * alone in its JVM (the devices must be named before rxe opens its devices); skipped without root.
 */
class RxeVerbsIpv6IT extends VerbsConformanceSuite {
    private static RxeIpv6Link link;

    @BeforeAll
    static void link() {
        link = RxeIpv6Link.shared();
    }

    @Override
    protected VerbsFixture createFixture() {
        Assumptions.assumeTrue(RxeIpv6Link.usable(link),
                "two unique-local IPv6 addresses for rxe6a/rxe6b (root and iproute2)");
        return new RxeVerbsFixture(RxeIpv6Link.DEVICE_A, RxeIpv6Link.DEVICE_B, true);
    }
}
