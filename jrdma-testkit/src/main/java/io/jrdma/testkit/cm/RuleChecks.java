package io.jrdma.testkit.cm;

/** Placeholder. */
abstract class RuleChecks extends CmChecks {
    RuleChecks(CmSuiteSupport support) {
        super(support);
    }
}
