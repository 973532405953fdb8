package io.jrdma.verbs;

/** An address handle ({@code struct ibv_ah}) for UD sends. */
public interface AddressHandle extends AutoCloseable {
    /** The address vector. */
    AhAttr attr();

    /** The protection domain. */
    ProtectionDomain pd();

    /** {@code ibv_destroy_ah}. */
    @Override
    void close();
}
