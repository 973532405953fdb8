package io.jrdma.testkit.cm;

/** The CM conformance suite on the in-process loop provider. */
class LoopCmConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new LoopCmFixture();
    }
}
