package io.jrdma.testkit;

/** The kinds of memory a region can be registered over. */
public enum MemoryKind {
    /** A native segment from a shared arena: the fast path. */
    NATIVE,
    /** A heap segment over a {@code byte[]}: works, documented as slower on the socket transports. */
    HEAP,
    /** A direct {@link java.nio.ByteBuffer}, registered from its position to its limit. */
    DIRECT_BUFFER
}
