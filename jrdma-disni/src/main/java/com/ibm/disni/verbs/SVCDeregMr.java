package com.ibm.disni.verbs;

/** Deregisters a memory region ({@code ibv_dereg_mr}). */
public abstract class SVCDeregMr implements StatefulVerbCall<SVCDeregMr> {
    /** For the implementation. */
    public SVCDeregMr() {
    }
}
