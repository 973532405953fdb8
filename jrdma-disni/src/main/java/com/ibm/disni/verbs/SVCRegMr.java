package com.ibm.disni.verbs;

/** Registers memory with a protection domain ({@code ibv_reg_mr}); each {@link #execute()} makes a new region. */
public abstract class SVCRegMr implements StatefulVerbCall<SVCRegMr> {
    /** For the implementation. */
    public SVCRegMr() {
    }

    /**
     * The region the last {@link #execute()} registered.
     *
     * @return the region, or {@code null} before the first execute
     */
    public abstract IbvMr getMr();
}
