package io.jrdma.siw.cm;

import io.jrdma.testkit.cm.CmConformanceSuite;
import io.jrdma.testkit.cm.CmFixture;

/** The CM conformance suite on siw0: rdma_cm over iw_cm over MPA on real TCP. */
class SiwCmConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new SiwCmFixture();
    }
}
