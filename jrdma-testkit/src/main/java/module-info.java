/**
 * jrdma's test kit: the provider-neutral conformance suites every provider subclasses, the
 * in-house property runner, and the helpers they share (deadline polling, canary-guarded buffers,
 * data patterns).
 */
module io.jrdma.testkit {
    requires transitive io.jrdma.core;
    requires transitive org.junit.jupiter.api;
    requires transitive org.assertj.core;
    requires org.junit.jupiter.params;
    requires java.logging;
    requires jdk.management;

    exports io.jrdma.testkit;
    exports io.jrdma.testkit.cm;
    // The suite's nested test groups are package-private; JUnit instantiates them reflectively.
    opens io.jrdma.testkit to org.junit.platform.commons;
}
