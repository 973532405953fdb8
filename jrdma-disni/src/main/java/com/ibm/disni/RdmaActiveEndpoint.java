package com.ibm.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;

/** An endpoint of an {@link RdmaActiveEndpointGroup}: the group's CQ thread delivers its completions. */
public abstract class RdmaActiveEndpoint extends RdmaEndpoint {
    private final RdmaActiveEndpointGroup<? extends RdmaActiveEndpoint> agroup;

    /**
     * An endpoint of {@code group}.
     *
     * @param group the group
     * @param idPriv the connection-manager id
     * @param serverSide whether a server endpoint accepted it
     * @throws IOException never; declared as DiSNI declares it
     */
    public RdmaActiveEndpoint(RdmaActiveEndpointGroup<? extends RdmaActiveEndpoint> group, RdmaCmId idPriv,
            boolean serverSide) throws IOException {
        super(group, idPriv, serverSide);
        this.agroup = group;
    }

    /**
     * Takes a completion of this endpoint's QP, on the CQ thread.
     *
     * @param wc the completion (the processor's object: see {@link RdmaCqProcessor} for how long it stays intact)
     * @throws IOException if the application fails (logged, delivery goes on)
     */
    public abstract void dispatchCqEvent(IbvWC wc) throws IOException;

    @Override
    public void close() throws IOException, InterruptedException {
        super.close();
        agroup.close(this);
    }
}
