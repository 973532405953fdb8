package io.jrdma.kernel;

import io.jrdma.testkit.cm.CmConformanceSuite;
import io.jrdma.testkit.cm.CmFixture;

/**
 * The CM conformance suite over the kernel's rdma_cm on siw0 ({@code native:siw0}); skipped where the kernel has
 * no siw0 or binds the address to another device (run it in the interop rig: {@code interop/native-suites.sh}).
 */
class NativeSiwCmConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new NativeCmFixture("siw0");
    }
}
