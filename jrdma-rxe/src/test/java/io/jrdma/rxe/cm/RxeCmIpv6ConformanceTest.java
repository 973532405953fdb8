package io.jrdma.rxe.cm;

import io.jrdma.testkit.cm.CmConformanceSuite;
import io.jrdma.testkit.cm.CmFixture;

/** The CM conformance suite on rxe6 over IPv6: QP1 MADs and RoCEv2 in IPv6/UDP 4791 on ::1. */
class RxeCmIpv6ConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new RxeCmFixture(true);
    }
}
