package com.ibm.disni.verbs;

/** Queue-pair capacities ({@code struct ibv_qp_cap}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvQPCap {
    private int max_send_wr;
    private int max_recv_wr;
    private int max_send_sge;
    private int max_recv_sge;
    private int max_inline_data;

    /** Zero capacities. */
    protected IbvQPCap() {
    }

    /**
     * The most outstanding send requests.
     *
     * @return the most outstanding send requests
     */
    public int getMax_send_wr() {
        return max_send_wr;
    }

    /**
     * Sets the most outstanding send requests.
     *
     * @param max_send_wr the new value
     */
    public void setMax_send_wr(int max_send_wr) {
        this.max_send_wr = max_send_wr;
    }

    /**
     * The most outstanding receive requests.
     *
     * @return the most outstanding receive requests
     */
    public int getMax_recv_wr() {
        return max_recv_wr;
    }

    /**
     * Sets the most outstanding receive requests.
     *
     * @param max_recv_wr the new value
     */
    public void setMax_recv_wr(int max_recv_wr) {
        this.max_recv_wr = max_recv_wr;
    }

    /**
     * The most entries per send request.
     *
     * @return the most entries per send request
     */
    public int getMax_send_sge() {
        return max_send_sge;
    }

    /**
     * Sets the most entries per send request.
     *
     * @param max_send_sge the new value
     */
    public void setMax_send_sge(int max_send_sge) {
        this.max_send_sge = max_send_sge;
    }

    /**
     * The most entries per receive request.
     *
     * @return the most entries per receive request
     */
    public int getMax_recv_sge() {
        return max_recv_sge;
    }

    /**
     * Sets the most entries per receive request.
     *
     * @param max_recv_sge the new value
     */
    public void setMax_recv_sge(int max_recv_sge) {
        this.max_recv_sge = max_recv_sge;
    }

    /**
     * The most inline bytes per send request.
     *
     * @return the most inline bytes per send request
     */
    public int getMax_inline_data() {
        return max_inline_data;
    }

    /**
     * Sets the most inline bytes per send request.
     *
     * @param max_inline_data the new value
     */
    public void setMax_inline_data(int max_inline_data) {
        this.max_inline_data = max_inline_data;
    }
}
