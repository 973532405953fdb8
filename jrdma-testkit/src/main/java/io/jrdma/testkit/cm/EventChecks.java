package io.jrdma.testkit.cm;

/** Placeholder. */
abstract class EventChecks extends CmChecks {
    EventChecks(CmSuiteSupport support) {
        super(support);
    }
}
