package com.ibm.disni.verbs;

/** Arms a completion queue for its next completion event ({@code ibv_req_notify_cq}). */
public abstract class SVCReqNotify implements StatefulVerbCall<SVCReqNotify> {
    /** For the implementation. */
    public SVCReqNotify() {
    }
}
