package io.jrdma.siw.cm;

import io.jrdma.testkit.cm.CmConformanceSuite;
import io.jrdma.testkit.cm.CmFixture;

/** The CM conformance suite on siw0 over IPv6: rdma_cm over iw_cm over MPA on TCP over ::1. */
class SiwCmIpv6ConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new SiwCmFixture(true);
    }
}
