package com.ibm.disni.verbs;

/** Waits for a completion event on a completion channel ({@code ibv_get_cq_event}). */
public abstract class SVCGetCqEvent implements StatefulVerbCall<SVCGetCqEvent> {
    /** For the implementation. */
    public SVCGetCqEvent() {
    }
}
