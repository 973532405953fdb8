package io.jrdma.siw;

import io.jrdma.testkit.CmVerbsFixture;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.VerbsConformanceSuite;
import io.jrdma.testkit.VerbsFixture;

/** The verbs conformance suite on siw0 over real TCP on 127.0.0.1. */
class SiwVerbsConformanceTest extends VerbsConformanceSuite {
    @Override
    protected VerbsFixture createFixture() {
        return new CmVerbsFixture("siw0", Features.iwarp(SiwDevice.MAX_INLINE), "127.0.0.1");
    }
}
