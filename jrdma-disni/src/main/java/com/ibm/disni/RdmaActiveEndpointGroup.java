package com.ibm.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;

/**
 * A group whose endpoints on one device share a CQ, and a thread ({@link RdmaActiveCqProcessor}) delivers each
 * completion to its endpoint's {@link RdmaActiveEndpoint#dispatchCqEvent}.
 *
 * @param <C> the endpoint type
 */
public class RdmaActiveEndpointGroup<C extends RdmaActiveEndpoint> extends RdmaEndpointGroup<C> {
    private final HashMap<Integer, RdmaActiveCqProcessor<C>> cqMap = new HashMap<>();
    private final int timeout;
    private final boolean polling;
    protected int cqSize;
    protected int maxSge;
    protected int maxWR;

    /**
     * A group.
     *
     * @param timeout milliseconds the CM and CQ threads wait at a time
     * @param polling the CQ thread polls without pause instead of waiting on the CQ's channel
     * @param maxWR send and receive requests each QP holds (and completions taken per poll)
     * @param maxSge scatter/gather entries per request
     * @param cqSize entries of the shared CQ
     * @throws IOException if no event channel can be made
     */
    public RdmaActiveEndpointGroup(int timeout, boolean polling, int maxWR, int maxSge, int cqSize)
            throws IOException {
        super(timeout);
        this.timeout = timeout;
        this.polling = polling;
        this.cqSize = cqSize;
        this.maxSge = maxSge;
        this.maxWR = maxWR;
    }

    @Override
    public RdmaCqProvider createCqProvider(C endpoint) throws IOException {
        IbvContext context = endpoint.getIdPriv().getVerbs();
        if (context == null) {
            throw new IOException("setting up cq processor, no context found");
        }
        synchronized (cqMap) {
            RdmaActiveCqProcessor<C> p = cqMap.get(context.getCmd_fd());
            if (p == null) {
                p = new RdmaActiveCqProcessor<>(context, cqSize, maxWR, 0, cqMap.size() + 1, timeout, polling);
                cqMap.put(context.getCmd_fd(), p);
                p.start();
            }
            return p;
        }
    }

    @Override
    public IbvQP createQpProvider(C endpoint) throws IOException {
        IbvContext context = endpoint.getIdPriv().getVerbs();
        RdmaActiveCqProcessor<C> p;
        synchronized (cqMap) {
            p = cqMap.get(context.getCmd_fd());
        }
        IbvCQ cq = p.getCQ();
        IbvQPInitAttr attr = rcQpAttr(cq, maxWR, maxSge);
        IbvQP qp = endpoint.getIdPriv().createQP(endpoint.getPd(), attr);
        p.registerQP(qp.getQp_num(), endpoint);
        return qp;
    }

    @Override
    public void allocateResources(C endpoint) throws Exception {
        endpoint.allocateResources();
    }

    /**
     * Closes the endpoints (see {@link RdmaEndpointGroup#close()}), then the CQ threads and CQs.
     *
     * @throws IOException if freeing fails
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public void close() throws IOException, InterruptedException {
        super.close();
        List<RdmaActiveCqProcessor<C>> processors;
        synchronized (cqMap) {
            processors = new ArrayList<>(cqMap.values());
            cqMap.clear();
        }
        for (RdmaActiveCqProcessor<C> p : processors) {
            p.close();
        }
    }

    void close(RdmaEndpoint endpoint) throws IOException {
        IbvContext context = endpoint.getIdPriv().getVerbs();
        if (context == null) {
            return;
        }
        RdmaActiveCqProcessor<C> p;
        synchronized (cqMap) {
            p = cqMap.get(context.getCmd_fd());
        }
        if (p != null) {
            p.unregister(endpoint);
        }
    }

    /**
     * Requests per QP queue.
     *
     * @return maxWR
     */
    public int getMaxWR() {
        return maxWR;
    }

    /**
     * Entries of the shared CQ.
     *
     * @return cqSize
     */
    public int getCqSize() {
        return cqSize;
    }

    /**
     * Scatter/gather entries per request.
     *
     * @return maxSge
     */
    public int getMaxSge() {
        return maxSge;
    }
}
