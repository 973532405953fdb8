package io.jrdma.kernel;

import io.jrdma.testkit.cm.CmConformanceSuite;
import io.jrdma.testkit.cm.CmFixture;

/**
 * The CM conformance suite over the kernel's rdma_cm on rxe0 ({@code native:rxe0}); skipped where the kernel has
 * no rxe0 or binds the address to another device (run it in the interop rig: {@code interop/native-suites.sh}).
 */
class NativeRxeCmConformanceTest extends CmConformanceSuite {
    @Override
    protected CmFixture createFixture() {
        return new NativeCmFixture("rxe0");
    }
}
