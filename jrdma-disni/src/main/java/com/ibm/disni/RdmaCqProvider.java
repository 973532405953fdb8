package com.ibm.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;

/** A completion queue with its completion channel, made for endpoints of a group. */
public class RdmaCqProvider {
    protected IbvContext context;
    protected IbvCompChannel compChannel;
    protected IbvCQ cq;
    protected int cqSize;

    /**
     * A CQ of at least {@code cqSize} entries on {@code context}, with a channel of its own.
     *
     * @param context the device context
     * @param cqSize entries
     * @throws IOException on failure
     */
    public RdmaCqProvider(IbvContext context, int cqSize) throws IOException {
        this.context = context;
        this.compChannel = context.createCompChannel();
        this.cqSize = cqSize;
        this.cq = context.createCQ(compChannel, cqSize, 0);
    }

    /**
     * Destroys the CQ and its channel (the QPs using it must be destroyed first).
     *
     * @throws IOException while a QP still uses the CQ
     * @throws InterruptedException never here; declared as DiSNI declares it
     */
    public void close() throws IOException, InterruptedException {
        if (cq.isOpen()) {
            cq.destroyCQ();
        }
        if (compChannel.isOpen()) {
            compChannel.destroyCompChannel();
        }
    }

    /**
     * The completion queue.
     *
     * @return the CQ
     */
    public IbvCQ getCQ() {
        return cq;
    }

    /**
     * The entries asked for.
     *
     * @return the size
     */
    public int getCqSize() {
        return cqSize;
    }
}
