package com.ibm.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;

/**
 * The CQ processor of {@link RdmaActiveEndpointGroup}: completions go to
 * {@link RdmaActiveEndpoint#dispatchCqEvent(IbvWC)}.
 *
 * @param <C> the endpoint type
 */
public class RdmaActiveCqProcessor<C extends RdmaActiveEndpoint> extends RdmaCqProcessor<C> {
    /**
     * See {@link RdmaCqProcessor#RdmaCqProcessor}.
     *
     * @param context the device context
     * @param cqSize the CQ's entries
     * @param wrSize completions taken per poll
     * @param affinity the CPU mask wished for the thread (recorded only)
     * @param clusterId a number naming the thread
     * @param timeout milliseconds the thread waits on the channel at a time
     * @param polling poll without pause
     * @throws IOException on failure
     */
    public RdmaActiveCqProcessor(IbvContext context, int cqSize, int wrSize, long affinity, int clusterId,
            int timeout, boolean polling) throws IOException {
        super(context, cqSize, wrSize, affinity, clusterId, timeout, polling);
    }

    @Override
    public void dispatchCqEvent(C endpoint, IbvWC wc) throws IOException {
        endpoint.dispatchCqEvent(wc);
    }
}
