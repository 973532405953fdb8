package io.jrdma.rxe.cm;

import io.jrdma.testkit.cm.CmConformanceSuite;
import io.jrdma.testkit.cm.CmFixture;

/** The CM conformance suite, unchanged, on rxe0: the IB CM as QP1 MADs over UDP 4791. */
class RxeCmConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new RxeCmFixture();
    }
}
