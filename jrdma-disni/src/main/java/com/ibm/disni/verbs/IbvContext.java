package com.ibm.disni.verbs;

import java.io.IOException;

/** An open device ({@code struct ibv_context}), as a connection-manager id reports it ({@code id->verbs}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvContext {
    private final RdmaVerbs verbs;
    protected int cmd_fd;
    protected volatile boolean isOpen;
    protected int numCompVectors;

    /** On-demand paging of SEND ({@code IBV_ODP_SUPPORT_SEND}). */
    public static int IBV_ODP_SUPPORT_SEND = 1;
    /** On-demand paging of receives ({@code IBV_ODP_SUPPORT_RECV}). */
    public static int IBV_ODP_SUPPORT_RECV = 1 << 1;
    /** On-demand paging of RDMA WRITE ({@code IBV_ODP_SUPPORT_WRITE}). */
    public static int IBV_ODP_SUPPORT_WRITE = 1 << 2;
    /** On-demand paging of RDMA READ ({@code IBV_ODP_SUPPORT_READ}). */
    public static int IBV_ODP_SUPPORT_READ = 1 << 3;
    /** On-demand paging of atomics ({@code IBV_ODP_SUPPORT_ATOMIC}). */
    public static int IBV_ODP_SUPPORT_ATOMIC = 1 << 4;

    /**
     * A context known by {@code cmd_fd}.
     *
     * @param cmd_fd a number unique in the process (there is no file descriptor)
     * @param numCompVectors the completion vectors
     * @throws IOException if the verbs cannot be opened
     */
    protected IbvContext(int cmd_fd, int numCompVectors) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.cmd_fd = cmd_fd;
        this.numCompVectors = numCompVectors;
        this.isOpen = true;
    }

    /**
     * The context's number, unique in the process (DiSNI's groups key their PDs and CQs by it).
     *
     * @return the number
     * @throws IOException never; declared as DiSNI declares it
     */
    public int getCmd_fd() throws IOException {
        return cmd_fd;
    }

    /**
     * The completion vectors.
     *
     * @return 1
     * @throws IOException never; declared as DiSNI declares it
     */
    public int getNumCompVectors() throws IOException {
        return numCompVectors;
    }

    /**
     * Whether the context is open.
     *
     * @return {@code true} while the device is open
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the context closed (the connection manager owns the device context and closes it). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @return the domain
     * @throws IOException on failure
     */
    public IbvPd allocPd() throws IOException {
        return verbs.allocPd(this);
    }

    /**
     * {@code ibv_create_comp_channel}.
     *
     * @return the channel
     * @throws IOException on failure
     */
    public IbvCompChannel createCompChannel() throws IOException {
        return verbs.createCompChannel(this);
    }

    /**
     * {@code ibv_create_cq}.
     *
     * @param compChannel the channel notifications go to, or {@code null}
     * @param ncqe at least this many entries
     * @param comp_vector the completion vector (ignored)
     * @return the queue
     * @throws IOException on failure
     */
    public IbvCQ createCQ(IbvCompChannel compChannel, int ncqe, int comp_vector) throws IOException {
        return verbs.createCQ(this, compChannel, ncqe, comp_vector);
    }

    /**
     * The operations whose memory may be paged on demand ({@code IBV_ODP_SUPPORT_*} bits of RC).
     *
     * @return the bits (jrdma never pins registered memory)
     * @throws IOException on failure
     */
    public int queryOdpSupport() throws IOException {
        return verbs.queryOdpSupport(this);
    }
}
