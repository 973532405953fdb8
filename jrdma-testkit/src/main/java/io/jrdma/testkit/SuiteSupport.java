package io.jrdma.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * The per-test state of a conformance suite: the fixture of the running test and everything the test
 * made, closed last-first when the test ends (so a failing test never leaks QPs or memory into the
 * next one).
 */
final class SuiteSupport {
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private VerbsFixture fixture;

    /** Starts a test with its fixture. */
    void open(VerbsFixture f) {
        resources.clear();
        fixture = Objects.requireNonNull(f, "createFixture() returned null");
    }

    /** The fixture of the running test. */
    VerbsFixture fixture() {
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

    /** Closes what the test made, then the fixture; rethrows the first failure. */
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
            } catch (Exception e) {
                first = first == null ? e : first;
            }
            fixture = null;
        }
        if (first != null) {
            throw first;
        }
    }
}
