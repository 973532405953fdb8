package io.jrdma.verbs;

/** An address handle ({@code struct ibv_ah}) for UD sends. */
public interface AddressHandle extends AutoCloseable {
    /** The address vector. Linux: the {@code struct ibv_ah_attr} given to {@code ibv_create_ah}. */
    AhAttr attr();

    /** The protection domain. Linux: {@code ibv_ah.pd}. */
    ProtectionDomain pd();

    /** {@code ibv_destroy_ah}. */
    @Override
    void close();
}
