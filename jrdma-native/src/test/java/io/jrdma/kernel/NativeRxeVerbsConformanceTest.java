package io.jrdma.kernel;

import io.jrdma.testkit.VerbsConformanceSuite;
import io.jrdma.testkit.VerbsFixture;

/**
 * The verbs conformance suite over the kernel's rxe0 through libibverbs ({@code native:rxe0}); skipped where the
 * kernel has no rxe0 (run it in the interop rig: {@code interop/native-suites.sh}).
 */
class NativeRxeVerbsConformanceTest extends VerbsConformanceSuite {
    @Override
    protected VerbsFixture createFixture() {
        return new NativeVerbsFixture("rxe0");
    }
}
