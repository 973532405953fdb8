package io.jrdma.testkit.cm;

/** Placeholder. */
abstract class ChannelApiChecks extends CmChecks {
    ChannelApiChecks(CmSuiteSupport support) {
        super(support);
    }
}
