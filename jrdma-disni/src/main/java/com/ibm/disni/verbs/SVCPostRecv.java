package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Posts a list of receive work requests ({@code ibv_post_recv}). The list is copied when the call is prepared;
 * {@link #execute()} posts that copy again each time without allocating.
 */
@SuppressWarnings("checkstyle:methodname")
public abstract class SVCPostRecv implements StatefulVerbCall<SVCPostRecv> {
    /** For the implementation. */
    public SVCPostRecv() {
    }

    /**
     * The prepared copy of the {@code index}-th work request.
     *
     * @param index position in the list the call was prepared with
     * @return a view of that request
     * @throws IOException if there is no such request
     */
    public abstract RecvWRMod getWrMod(int index) throws IOException;

    /** A prepared receive work request. */
    public interface RecvWRMod {
        /**
         * The request's id.
         *
         * @return {@code wr_id}
         */
        long getWr_id();
    }
}
