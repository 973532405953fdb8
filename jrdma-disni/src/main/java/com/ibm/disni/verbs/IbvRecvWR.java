package com.ibm.disni.verbs;

import java.util.LinkedList;

/** A receive work request ({@code struct ibv_recv_wr}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvRecvWR {
    protected long wr_id;
    protected LinkedList<IbvSge> sg_list;
    protected int num_sge;

    /** An empty request. */
    public IbvRecvWR() {
        this.sg_list = new LinkedList<>();
    }

    /**
     * The id returned in the completion.
     *
     * @return the id returned in the completion
     */
    public long getWr_id() {
        return wr_id;
    }

    /**
     * Sets the id returned in the completion.
     *
     * @param wr_id the new value
     */
    public void setWr_id(long wr_id) {
        this.wr_id = wr_id;
    }

    /**
     * The number of scatter/gather entries.
     *
     * @return the number of scatter/gather entries
     */
    public int getNum_sge() {
        return num_sge;
    }

    /**
     * Sets the number of scatter/gather entries.
     *
     * @param num_sge the new value
     */
    public void setNum_sge(int num_sge) {
        this.num_sge = num_sge;
    }

    /**
     * The scatter/gather list (the object itself, not a copy).
     *
     * @return the list
     */
    public LinkedList<IbvSge> getSg_list() {
        return sg_list;
    }

    /**
     * Uses {@code sg_list} as this request's list (kept by reference) and sets {@code num_sge} to its size.
     *
     * @param sg_list the entries
     */
    public void setSg_list(LinkedList<IbvSge> sg_list) {
        this.sg_list = sg_list;
        this.num_sge = sg_list.size();
    }
}
