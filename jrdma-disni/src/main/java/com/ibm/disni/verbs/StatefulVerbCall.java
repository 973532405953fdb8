package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * A prepared verb call: built once, executed any number of times, freed when no longer needed. Executing a call
 * that was prepared once costs no allocation.
 *
 * @param <T> the concrete call type, returned for chaining ({@code call.execute().free()})
 */
public interface StatefulVerbCall<T extends StatefulVerbCall<?>> {
    /**
     * Performs the call with its current parameters.
     *
     * @return this call
     * @throws IOException if the verb fails or the call was freed
     */
    T execute() throws IOException;

    /**
     * Whether the call can still be executed (it has not been freed).
     *
     * @return {@code true} until {@link #free()}
     */
    boolean isValid();

    /**
     * Releases the call; it cannot be executed afterwards.
     *
     * @return this call
     */
    T free();
}
