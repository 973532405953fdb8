package com.ibm.disni.verbs;

/**
 * Polls a completion queue into the {@link IbvWC} array it was prepared with ({@code ibv_poll_cq}). Each
 * {@link #execute()} overwrites the first {@link #getPolls()} entries and allocates nothing.
 */
public abstract class SVCPollCq implements StatefulVerbCall<SVCPollCq> {
    /** For the implementation. */
    public SVCPollCq() {
    }

    /**
     * How many completions the last {@link #execute()} returned.
     *
     * @return 0 if the queue was empty
     */
    public abstract int getPolls();
}
