package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Posts a list of send work requests ({@code ibv_post_send}). The list is copied when the call is prepared; the
 * copy's ids, flags, remote addresses and scatter/gather entries can be changed through {@link #getWrMod(int)}
 * between executions, and every {@link #execute()} posts the values as they are then, without allocating.
 */
public abstract class SVCPostSend implements StatefulVerbCall<SVCPostSend> {
    /** For the implementation. */
    public SVCPostSend() {
    }

    /**
     * The prepared copy of the {@code index}-th work request, to edit before the next {@link #execute()}.
     *
     * @param index position in the list the call was prepared with
     * @return the editable request (the same object on every call)
     * @throws IOException if there is no such request
     */
    public abstract SendWRMod getWrMod(int index) throws IOException;

    /** An editable prepared send work request. */
    @SuppressWarnings("checkstyle:methodname")
    public interface SendWRMod {
        /**
         * Sets the id returned in the completion.
         *
         * @param wr_id the id
         */
        void setWr_id(long wr_id);

        /**
         * Sets the {@code IBV_SEND_*} flags.
         *
         * @param send_flags the flags
         */
        void setSend_flags(int send_flags);

        /**
         * The id returned in the completion.
         *
         * @return {@code wr_id}
         */
        long getWr_id();

        /**
         * The number of scatter/gather entries.
         *
         * @return {@code num_sge}
         */
        int getNum_sge();

        /**
         * The opcode ({@code IbvSendWR.IBV_WR_*}).
         *
         * @return the opcode
         */
        int getOpcode();

        /**
         * The {@code IBV_SEND_*} flags.
         *
         * @return the flags
         */
        int getSend_flags();

        /**
         * The remote address and key of an RDMA (or atomic) request.
         *
         * @return the editable remote part
         */
        RdmaMod getRdmaMod();

        /**
         * The {@code index}-th scatter/gather entry.
         *
         * @param index the entry
         * @return the editable entry
         * @throws IndexOutOfBoundsException if the request has no such entry
         */
        SgeMod getSgeMod(int index);
    }

    /** The editable remote part of a prepared RDMA or atomic request. */
    @SuppressWarnings("checkstyle:methodname")
    public interface RdmaMod {
        /**
         * Sets the remote virtual address.
         *
         * @param remote_addr the address
         */
        void setRemote_addr(long remote_addr);

        /**
         * The remote virtual address.
         *
         * @return the address
         */
        long getRemote_addr();

        /**
         * Sets the remote key.
         *
         * @param rkey the key
         */
        void setRkey(int rkey);

        /**
         * The remote key.
         *
         * @return the key
         */
        int getRkey();

        /**
         * Sets the reserved word (kept, never sent).
         *
         * @param reserved any value
         */
        void setReserved(int reserved);

        /**
         * The reserved word.
         *
         * @return the value last set
         */
        int getReserved();
    }

    /** An editable scatter/gather entry of a prepared request. */
    public interface SgeMod {
        /**
         * Sets the local virtual address.
         *
         * @param addr the address
         */
        void setAddr(long addr);

        /**
         * The local virtual address.
         *
         * @return the address
         */
        long getAddr();

        /**
         * Sets the length in bytes.
         *
         * @param length the length
         */
        void setLength(int length);

        /**
         * The length in bytes.
         *
         * @return the length
         */
        int getLength();

        /**
         * Sets the local key.
         *
         * @param lkey the key
         */
        void setLkey(int lkey);

        /**
         * The local key.
         *
         * @return the key
         */
        int getLkey();
    }
}
