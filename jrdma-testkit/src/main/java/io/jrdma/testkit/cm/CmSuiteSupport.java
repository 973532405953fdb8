package io.jrdma.testkit.cm;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * The per-test state of {@link CmConformanceSuite}: the fixture of the running test and what the
 * test opened (connection managers, helper threads), closed last-first when the test ends so that a
 * failing test cannot leak ids, ports or listeners into the next one.
 */
final class CmSuiteSupport {
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private CmFixture fixture;

    /** Starts a test with its fixture. */
    void open(CmFixture f) {
        resources.clear();
        fixture = Objects.requireNonNull(f, "createFixture() returned null");
    }

    /** The fixture of the running test. */
    CmFixture fixture() {
        if (fixture == null) {
            throw new IllegalStateException("no fixture: the suite's @BeforeEach did not run");
        }
        return fixture;
    }

    /** Closes {@code resource} when the test ends. */
    <T extends AutoCloseable> T track(T resource) {
        resources.push(resource);
        return resource;
    }

    /** Closes what the test opened, then the fixture; rethrows the first failure. */
    void close() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (fixture != null) {
            try {
                fixture.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
            fixture = null;
        }
        if (first != null) {
            throw first;
        }
    }
}
