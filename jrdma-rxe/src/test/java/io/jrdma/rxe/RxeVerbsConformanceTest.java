package io.jrdma.rxe;

import io.jrdma.testkit.VerbsConformanceSuite;
import io.jrdma.testkit.VerbsFixture;

/** The provider-neutral verbs conformance suite, unchanged, on rxe0 and rxe1 over UDP. */
class RxeVerbsConformanceTest extends VerbsConformanceSuite {
    @Override
    protected VerbsFixture createFixture() {
        return new RxeVerbsFixture();
    }
}
