package io.jrdma.testkit.cm;

/** The CM conformance suite on the loop provider over IPv6: every id binds, listens and connects on ::1. */
class LoopCmIpv6ConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new LoopCmFixture(true);
    }
}
