package io.jrdma.testkit.cm;

/** Placeholder. */
abstract class LifecycleChecks extends CmChecks {
    LifecycleChecks(CmSuiteSupport support) {
        super(support);
    }
}
