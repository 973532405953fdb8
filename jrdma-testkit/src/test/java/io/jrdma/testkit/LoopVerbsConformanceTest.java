package io.jrdma.testkit;

/** The provider-neutral verbs conformance suite, run on the in-process loop provider. */
class LoopVerbsConformanceTest extends VerbsConformanceSuite {
    @Override
    protected VerbsFixture createFixture() {
        return new LoopVerbsFixture();
    }
}
