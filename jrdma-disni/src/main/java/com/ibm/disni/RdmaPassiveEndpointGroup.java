package com.ibm.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;

/**
 * A group that gives each endpoint a CQ of its own and no thread: the application polls
 * ({@code endpoint.getCqProvider().getCQ()}).
 *
 * @param <C> the endpoint type
 */
public class RdmaPassiveEndpointGroup<C extends RdmaEndpoint> extends RdmaEndpointGroup<C> {
    private final int maxWR;
    private final int maxSge;
    private final int cqSize;

    /**
     * A started group of plain {@link RdmaEndpoint}s with the given sizes (an instance method, as in DiSNI).
     *
     * @param timeout milliseconds the CM thread waits at a time
     * @param maxWR requests per QP queue
     * @param maxSge entries per request
     * @param cqSize entries of each endpoint's CQ
     * @return the group
     * @throws IOException on failure
     */
    public RdmaPassiveEndpointGroup<RdmaEndpoint> createDefaultGroup(int timeout, int maxWR, int maxSge, int cqSize)
            throws IOException {
        RdmaPassiveEndpointGroup<RdmaEndpoint> group = new RdmaPassiveEndpointGroup<>(timeout, maxWR, maxSge, cqSize);
        group.init(group.new RawEndpointFactory(group));
        return group;
    }

    /**
     * A group.
     *
     * @param timeout milliseconds the CM thread waits at a time
     * @param maxWR requests per QP queue
     * @param maxSge entries per request
     * @param cqSize entries of each endpoint's CQ
     * @throws IOException if no event channel can be made
     */
    public RdmaPassiveEndpointGroup(int timeout, int maxWR, int maxSge, int cqSize) throws IOException {
        super(timeout);
        this.maxWR = maxWR;
        this.maxSge = maxSge;
        this.cqSize = cqSize;
    }

    @Override
    public RdmaCqProvider createCqProvider(C endpoint) throws IOException {
        return new RdmaCqProvider(endpoint.getIdPriv().getVerbs(), cqSize);
    }

    @Override
    public IbvQP createQpProvider(C endpoint) throws IOException {
        IbvCQ cq = endpoint.getCqProvider().getCQ();
        IbvQPInitAttr attr = rcQpAttr(cq, maxWR, maxSge);
        return endpoint.getIdPriv().createQP(endpoint.getPd(), attr);
    }

    @Override
    public void allocateResources(C endpoint) throws Exception {
        endpoint.allocateResources();
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
     * Entries per request.
     *
     * @return maxSge
     */
    public int getMaxSge() {
        return maxSge;
    }

    /**
     * Entries of each endpoint's CQ.
     *
     * @return cqSize
     */
    public int getCqSize() {
        return cqSize;
    }

    /** Makes plain {@link RdmaEndpoint}s. */
    protected class RawEndpointFactory implements RdmaEndpointFactory<RdmaEndpoint> {
        private final RdmaPassiveEndpointGroup<RdmaEndpoint> group;

        /**
         * A factory for {@code group}.
         *
         * @param group the group
         */
        public RawEndpointFactory(RdmaPassiveEndpointGroup<RdmaEndpoint> group) {
            this.group = group;
        }

        @Override
        public RdmaEndpoint createEndpoint(RdmaCmId idPriv, boolean serverSide) throws IOException {
            return new RdmaEndpoint(group, idPriv, serverSide);
        }
    }
}
