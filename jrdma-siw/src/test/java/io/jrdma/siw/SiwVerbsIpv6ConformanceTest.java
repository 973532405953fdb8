package io.jrdma.siw;

import io.jrdma.testkit.CmVerbsFixture;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.VerbsConformanceSuite;
import io.jrdma.testkit.VerbsFixture;

/**
 * The verbs conformance suite on siw0 over real TCP on ::1: MPA, DDP and RDMAP over TCPv6 (the groups that
 * stay on the host run over IPv4 only, {@link SiwVerbsConformanceTest}).
 */
class SiwVerbsIpv6ConformanceTest extends VerbsConformanceSuite {
    @Override
    protected VerbsFixture createFixture() {
        return new CmVerbsFixture("siw0", Features.iwarp(SiwDevice.MAX_INLINE), "::1", true);
    }
}
