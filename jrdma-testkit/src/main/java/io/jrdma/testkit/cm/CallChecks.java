package io.jrdma.testkit.cm;

/** Placeholder. */
abstract class CallChecks extends CmChecks {
    CallChecks(CmSuiteSupport support) {
        super(support);
    }
}
