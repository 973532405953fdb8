package io.jrdma.testkit.cm;

/**
 * What a transport's connection manager can do, so that {@link CmConformanceSuite} skips (with JUnit
 * assumptions) the tests of what it cannot.
 */
public enum CmCapability {
    /** The UDP port space: UD ids resolved with SIDR (IB/RoCE; not iWARP). */
    UD_SIDR,
    /**
     * CONNECT_RESPONSE on an active id without a QP, answered with {@code accept(null)} (the RTU);
     * IB/RoCE only.
     */
    CONNECT_RESPONSE,
    /** Enhanced Connection Establishment in REQ/REP/REJ (IB/RoCE). */
    ECE,
    /** TIMEWAIT_EXIT after a disconnect (IB/RoCE). */
    TIMEWAIT_EXIT,
    /** The iWARP CM ({@code iw_cm}) under rdma_cm and as an API of its own. */
    IW_CM,
    /** {@link CmFixture#drop} works: the suite can play a silent peer or lose one message. */
    DROP_MESSAGES,
    /**
     * The main device serves an address of the other family too ({@link CmFixture#otherFamilyAddress}):
     * the wildcard and AFONLY tests across IPv4 and IPv6.
     */
    DUAL_STACK,
    /** Multicast for UD ids: joinMulticast/leaveMulticast, the QPs attached to the group get its datagrams. */
    MULTICAST,
    /** {@link CmFixture#removeDevice} works: the suite can remove the main device and bring it back. */
    DEVICE_REMOVAL,
    /** {@link CmFixture#ibCmPeer} works: the suite can play raw IB CM peers against the main device. */
    RAW_IB_CM_PEER,
    /**
     * The IB port space ({@code PortSpace.IB}, RDMA_PS_IB): RC and UD ids on one listener, the QP type deciding
     * between a connection and SIDR (IB/RoCE).
     */
    IB_PORT_SPACE
}
