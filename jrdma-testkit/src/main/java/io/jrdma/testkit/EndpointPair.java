package io.jrdma.testkit;

import java.util.Objects;

/**
 * Two endpoints a {@link VerbsFixture} made for one test: a connected RC or UC pair (each QP in RTS
 * with the other as its destination), or two UD QPs in RTS that know each other's address.
 *
 * @param a the first side (usually the requester)
 * @param b the second side (usually the responder)
 */
public record EndpointPair(Endpoint a, Endpoint b) implements AutoCloseable {
    /** Rejects nulls. */
    public EndpointPair {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
    }

    /** Closes {@code a}, then {@code b}. */
    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}
