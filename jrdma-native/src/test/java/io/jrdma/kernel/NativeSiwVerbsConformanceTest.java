package io.jrdma.kernel;

import io.jrdma.testkit.VerbsConformanceSuite;
import io.jrdma.testkit.VerbsFixture;

/**
 * The verbs conformance suite over the kernel's siw0 through libibverbs ({@code native:siw0}); skipped where the
 * kernel has no siw0 (run it in the interop rig: {@code interop/native-suites.sh}).
 */
class NativeSiwVerbsConformanceTest extends VerbsConformanceSuite {
    @Override
    protected VerbsFixture createFixture() {
        return new NativeVerbsFixture("siw0");
    }
}
