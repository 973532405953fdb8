package io.jrdma.testkit.cm;

/** Placeholder. */
abstract class IwCmChecks extends CmChecks {
    IwCmChecks(CmSuiteSupport support) {
        super(support);
    }
}
