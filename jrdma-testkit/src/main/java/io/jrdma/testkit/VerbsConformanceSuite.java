package io.jrdma.testkit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The provider-neutral verbs conformance suite. A provider runs it by subclassing it in its tests and
 * supplying a {@link VerbsFixture}:
 *
 * <pre>{@code
 * class LoopVerbsConformanceTest extends VerbsConformanceSuite {
 *     protected VerbsFixture createFixture() { return new LoopVerbsFixture(); }
 * }
 * }</pre>
 *
 * <p>The tests are grouped in nested classes (device queries, memory, CQs, the QP state machine,
 * posting, the data path, remote access violations, retries, other error paths, flushing, SRQs,
 * datagrams, async events, resource limits, and the exactly-once completion property). Tests of what
 * a transport lacks ({@link Features}) are skipped with JUnit assumptions. Expectations follow IBTA
 * Vol 1 and Linux rxe; where the two differ, the group's Javadoc says which one the suite takes.
 *
 * <p>Every wait is bounded ({@link Await}); a fixture is created per test and everything the test
 * made is closed after it, so one failure cannot leak into the next test.
 */
public abstract class VerbsConformanceSuite {
    private final SuiteSupport support = new SuiteSupport();

    /** Creates the fixture of one test. */
    protected abstract VerbsFixture createFixture();

    @BeforeEach
    final void openFixture() {
        support.open(createFixture());
    }

    @AfterEach
    final void closeFixture() throws Exception {
        support.close();
    }

    /** Device, port and GID queries. */
    @Nested
    class DeviceQueries extends DeviceChecks {
        DeviceQueries() {
            super(support);
        }
    }

    /** Protection domains and memory regions. */
    @Nested
    class MemoryRegions extends MemoryChecks {
        MemoryRegions() {
            super(support);
        }
    }

    /** Memory the engines cannot reach, and regions whose arena closes while registered. */
    @Nested
    class MemoryLifetime extends MemoryLifetimeChecks {
        MemoryLifetime() {
            super(support);
        }
    }

    /** Completion queues, channels and notification. */
    @Nested
    class CompletionQueues extends CompletionQueueChecks {
        CompletionQueues() {
            super(support);
        }
    }

    /** The QP state machine and its attribute masks. */
    @Nested
    class QpStateMachine extends QpStateMachineChecks {
        QpStateMachine() {
            super(support);
        }
    }

    /** Posting rules. */
    @Nested
    class Posting extends PostingChecks {
        Posting() {
            super(support);
        }
    }

    /** The RC data path. */
    @Nested
    class DataTransfer extends DataTransferChecks {
        DataTransfer() {
            super(support);
        }
    }

    /** Remote access violations. */
    @Nested
    class RemoteAccessViolations extends RemoteAccessChecks {
        RemoteAccessViolations() {
            super(support);
        }
    }

    /** RNR and transport retries. */
    @Nested
    class Retries extends RetryChecks {
        Retries() {
            super(support);
        }
    }

    /** Other error paths. */
    @Nested
    class ErrorPaths extends ErrorPathChecks {
        ErrorPaths() {
            super(support);
        }
    }

    /** Flushing on ERR, reset and destroy. */
    @Nested
    class Flushing extends FlushChecks {
        Flushing() {
            super(support);
        }
    }

    /** Shared receive queues. */
    @Nested
    class SharedReceiveQueues extends SrqChecks {
        SharedReceiveQueues() {
            super(support);
        }
    }

    /** UD and UC service. */
    @Nested
    class Datagrams extends DatagramChecks {
        Datagrams() {
            super(support);
        }
    }

    /** Asynchronous events. */
    @Nested
    class AsyncEvents extends AsyncEventChecks {
        AsyncEvents() {
            super(support);
        }
    }

    /** Device limits. */
    @Nested
    class ResourceLimits extends ResourceLimitChecks {
        ResourceLimits() {
            super(support);
        }
    }

    /** The exactly-once completion property. */
    @Nested
    class CompletionProperty extends CompletionPropertyChecks {
        CompletionProperty() {
            super(support);
        }
    }
}
