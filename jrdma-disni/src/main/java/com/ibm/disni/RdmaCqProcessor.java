package com.ibm.disni;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

import com.ibm.disni.util.NativeAffinity;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;

/**
 * A CQ with a thread that delivers its completions to the endpoints of the QPs that use it. In blocking mode the
 * thread waits on the CQ's channel (at most the group's timeout at a time), re-arms the CQ and polls it empty; in
 * polling mode it polls without pause. At most {@code min(cqSize, wrSize)} completions are taken per poll.
 *
 * <p>The {@link IbvWC} handed to {@link #dispatchCqEvent(RdmaEndpoint, IbvWC)} is one of the processor's own: it
 * stays as delivered until three more polls have returned completions (DiSNI overwrites it at the next poll); an
 * application that keeps completions longer copies them ({@link IbvWC#clone()}).
 *
 * @param <C> the endpoint type
 */
public abstract class RdmaCqProcessor<C extends RdmaEndpoint> extends RdmaCqProvider implements Runnable {
    private static final System.Logger LOG = System.getLogger("com.ibm.disni");
    /** Arrays of completions polled into in turn: a delivered completion survives this many minus one polls. */
    private static final int POLL_ARRAYS = 4;
    /** Pause after an unexpected failure of a poll, so that a broken CQ does not spin a core. */
    private static final long FAILURE_PAUSE_NANOS = 1_000_000;

    private final IbvWC[][] wcLists;
    private final SVCPollCq[] polls;
    private final SVCReqNotify reqNotify;
    private final int timeout;
    private final boolean blocking;
    private final long affinity;
    private final int clusterId;
    private final Thread thread;
    private final QpTable<C> qpMap = new QpTable<>();
    private volatile boolean running;

    /**
     * A processor of a new CQ of at least {@code cqSize} entries.
     *
     * @param context the device context
     * @param cqSize the CQ's entries
     * @param wrSize completions taken per poll (at most {@code cqSize})
     * @param affinity the CPU mask wished for the thread (recorded only: Java threads cannot be pinned)
     * @param clusterId a number naming the thread
     * @param timeout milliseconds the thread waits on the channel at a time (blocking mode)
     * @param polling poll without pause instead of waiting on the channel
     * @throws IOException on failure
     */
    public RdmaCqProcessor(IbvContext context, int cqSize, int wrSize, long affinity, int clusterId, int timeout,
            boolean polling) throws IOException {
        super(context, cqSize);
        this.affinity = affinity;
        this.clusterId = clusterId;
        this.timeout = timeout;
        this.blocking = !polling;
        int perPoll = Math.max(1, Math.min(cqSize, wrSize));
        this.wcLists = new IbvWC[POLL_ARRAYS][perPoll];
        this.polls = new SVCPollCq[POLL_ARRAYS];
        for (int k = 0; k < POLL_ARRAYS; k++) {
            for (int i = 0; i < perPoll; i++) {
                wcLists[k][i] = new IbvWC();
            }
            polls[k] = cq.poll(wcLists[k], perPoll);
        }
        this.reqNotify = cq.reqNotification(false);
        if (blocking) {
            reqNotify.execute();
        }
        this.thread = new Thread(this, "disni-cq-" + clusterId);
    }

    /**
     * Delivers the completions of QP {@code qpnum} to {@code endpoint}.
     *
     * @param qpnum the QP number
     * @param endpoint the endpoint
     * @throws IOException never; declared as DiSNI declares it
     */
    public synchronized void registerQP(int qpnum, C endpoint) throws IOException {
        qpMap.put(qpnum, endpoint);
    }

    /**
     * Stops delivering the completions of {@code endpoint}'s QP.
     *
     * @param endpoint the endpoint
     * @throws IOException never; declared as DiSNI declares it
     */
    public synchronized void unregister(RdmaEndpoint endpoint) throws IOException {
        if (endpoint.getQp() != null) {
            qpMap.remove(endpoint.getQp().getQp_num());
        }
    }

    /**
     * Whether the thread runs.
     *
     * @return {@code true} between {@link #start()} and {@link #close()}
     */
    public synchronized boolean isRunning() {
        return running;
    }

    /** Starts the thread. */
    public synchronized void start() {
        running = true;
        thread.start();
    }

    /**
     * Delivers {@code wc} to the endpoint of its QP (completions of unknown QPs are dropped).
     *
     * @param wc the completion
     * @throws IOException if the endpoint's handler throws it
     */
    public final void dispatchCqEvent(IbvWC wc) throws IOException {
        C endpoint = qpMap.get(wc.getQp_num());
        if (endpoint != null) {
            dispatchCqEvent(endpoint, wc);
        }
    }

    /**
     * Delivers {@code wc} to {@code endpoint}.
     *
     * @param endpoint the endpoint of the completion's QP
     * @param wc the completion
     * @throws IOException if the endpoint's handler throws it
     */
    public abstract void dispatchCqEvent(C endpoint, IbvWC wc) throws IOException;

    /** The thread's loop. */
    @Override
    public void run() {
        NativeAffinity.setAffinity(affinity);
        int k = 0;
        while (running) {
            try {
                boolean ready = true;
                if (blocking) {
                    ready = compChannel.getCqEvent(cq, timeout);
                    if (ready) {
                        cq.ackEvents(1);
                        reqNotify.execute();
                    }
                }
                if (!ready) {
                    continue;
                }
                int n = polls[k].execute().getPolls();
                if (n == 0 && !blocking) {
                    Thread.onSpinWait();
                }
                while (n > 0) {
                    IbvWC[] wcs = wcLists[k];
                    for (int i = 0; i < n; i++) {
                        dispatchCqEvent(wcs[i]);
                    }
                    k = (k + 1) % POLL_ARRAYS;
                    n = polls[k].execute().getPolls();
                }
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    break;
                }
                LOG.log(System.Logger.Level.WARNING, "CQ processor " + clusterId + ": " + e.getMessage(), e);
                LockSupport.parkNanos(FAILURE_PAUSE_NANOS);
            }
        }
    }

    /**
     * The number naming the processor.
     *
     * @return the cluster id
     */
    public int getClusterId() {
        return clusterId;
    }

    /**
     * Stops the thread and destroys the CQ and its channel.
     *
     * @throws IOException while a QP still uses the CQ
     * @throws InterruptedException if interrupted while waiting for the thread
     */
    @Override
    public void close() throws IOException, InterruptedException {
        running = false;
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join();
        }
        super.close();
    }
}
