package io.jrdma.testkit.cm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The provider-neutral conformance suite of the RDMA connection manager: every call, event and rule
 * of SPEC.md (Linux {@code rdma_cm}, {@code iw_cm} and the IB CM as librdmacm and kernel ULPs see
 * them). A provider runs it by subclassing it in its tests and supplying a {@link CmFixture}:
 *
 * <pre>{@code
 * class LoopCmConformanceTest extends CmConformanceSuite {
 *     protected CmFixture createFixture() { return new LoopCmFixture(); }
 * }
 * }</pre>
 *
 * <p>The tests are grouped in nested classes: the kernel-style API (handlers), the librdmacm-style
 * API (event channels, synchronous ids, address info), the calls, the events, SPEC's twelve rules
 * (one test or more per rule, both sides), the lifecycle ("beyond one rule at a time"), the IB CM
 * against hostile raw peers and the iWARP CM as an API of its own. Tests of what a transport lacks
 * ({@link CmCapability}) are skipped with JUnit assumptions.
 *
 * <p>Client and server run in one JVM, each with its own {@link io.jrdma.cm.RdmaCm} (two processes,
 * as far as the connection manager can tell). Every wait is bounded; everything a test opened is
 * closed after it, and the fixture undoes any message drop.
 */
public abstract class CmConformanceSuite {
    private final CmSuiteSupport support = new CmSuiteSupport();

    /** Creates the fixture of one test. */
    protected abstract CmFixture createFixture();

    @BeforeEach
    final void openFixture() {
        support.open(createFixture());
    }

    @AfterEach
    final void closeFixture() throws Exception {
        support.close();
    }

    /** Kernel-style ids: handlers, their serialization and the handler-lock rules. */
    @Nested
    class KernelStyleApi extends KernelApiChecks {
        KernelStyleApi() {
            super(support);
        }
    }

    /** librdmacm-style event channels, synchronous ids and address information. */
    @Nested
    class ChannelApi extends ChannelApiChecks {
        ChannelApi() {
            super(support);
        }
    }

    /** Every call of SPEC.md's list. */
    @Nested
    class Calls extends CallChecks {
        Calls() {
            super(support);
        }
    }

    /** Addresses in the fixture's family: what ids and events report, and what rdma_cm refuses. */
    @Nested
    class Addresses extends AddressChecks {
        Addresses() {
            super(support);
        }
    }

    /** Every event of SPEC.md's list, with its status and data. */
    @Nested
    class Events extends EventChecks {
        Events() {
            super(support);
        }
    }

    /** SPEC.md's twelve rules. */
    @Nested
    class Rules extends RuleChecks {
        Rules() {
            super(support);
        }
    }

    /** Beyond one rule at a time: timeouts, backlog, disconnects, destroys, leaks. */
    @Nested
    class Lifecycle extends LifecycleChecks {
        Lifecycle() {
            super(support);
        }
    }

    /** The IB CM against raw peers: out-of-range fields, off-path senders, identity reuse, floods. */
    @Nested
    class HostileIbCmPeers extends IbCmPeerChecks {
        HostileIbCmPeers() {
            super(support);
        }
    }

    /** Multicast for UD ids (skipped where the transport has none). */
    @Nested
    class Multicast extends MulticastChecks {
        Multicast() {
            super(support);
        }
    }

    /** The iWARP CM as an API of its own (skipped on other transports). */
    @Nested
    class IwarpCm extends IwCmChecks {
        IwarpCm() {
            super(support);
        }
    }
}
