package io.jrdma.loop;

import io.jrdma.internal.engine.Doorbell;
import io.jrdma.internal.engine.Timer;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;

/**
 * A loop QP's transport state: its doorbell, its one timer (transport retry or RNR wait, like rxe's
 * retransmit and RNR NAK timers), and the retry budgets of the WQE at the head of its send queue.
 */
final class LoopQp implements ProviderQp {
    final QpImpl qp;
    final LoopEngine engine;
    final Doorbell<LoopQp> bell = new Doorbell<>(this);
    final Timer timer = new Timer(this::onTimer);
    /** Transport retries left for the head WQE; -1 until the first attempt. */
    int retriesLeft = -1;
    /** RNR retries left for the head WQE; -1 until the first RNR NAK. */
    int rnrLeft = -1;
    boolean waiting;
    /** The PSN the next new request starts at (synthetic: the loop has no wire). */
    int nextPsn;
    /** The first PSN of the head WQE's request. */
    int headPsn;
    /** The responder's message sequence number, for the AETHs of captured responses. */
    int msn;
    boolean sqDrainedReported;
    private boolean dead;

    LoopQp(QpImpl qp, LoopEngine engine) {
        this.qp = qp;
        this.engine = engine;
        if (engine.applicationDriven()) {
            qp.sendCq().addProgressHook(engine);
            qp.recvCq().addProgressHook(engine);
        }
    }

    @Override
    public void modified(QpState from, QpState to, int mask) {
        if (to == QpState.RESET) {
            engine.runSync(() -> {
                qp.flush();
                resetTransport();
            });
            return;
        }
        if (to == QpState.RTS) {
            sqDrainedReported = false;
            if (from == QpState.RTR) {
                nextPsn = qp.attr().sqPsn() & 0xFFFFFF;
            }
        }
        engine.ring(this);
    }

    @Override
    public void sendPosted() {
        engine.post(this);
    }

    @Override
    public void recvPosted() {
        if (qp.state() == QpState.ERR) {
            engine.ring(this);
        }
    }

    @Override
    public void destroy() {
        engine.runSync(() -> {
            dead = true;
            engine.timers.cancel(timer);
            qp.flush();
        });
    }

    private void resetTransport() {
        engine.timers.cancel(timer);
        waiting = false;
        retriesLeft = -1;
        rnrLeft = -1;
        sqDrainedReported = false;
    }

    private void onTimer() {
        waiting = false;
        engine.ring(this);
    }

    /** Resets the retry budgets after the head WQE made progress. */
    void headDone() {
        retriesLeft = -1;
        rnrLeft = -1;
    }

    /** Engine thread: processes the send queue or flushes. Returns the work done. */
    int process() {
        if (dead) {
            return 0;
        }
        QpState s = qp.state();
        switch (s) {
            case ERR -> {
                engine.timers.cancel(timer);
                waiting = false;
                return qp.flush();
            }
            case SQE -> {
                return qp.flushSend();
            }
            case SQD -> {
                // IBTA 10.3.1 (SQD): a WR that has begun runs to completion, no new one starts, and SQ
                // Drained is reported once nothing is outstanding. In loop only a head WR waiting for
                // an RNR or retry timer can have begun without completing.
                if (waiting) {
                    return 0;
                }
                long head = qp.sqRetired();
                if (head < qp.sqProduced() && (rnrLeft >= 0 || retriesLeft >= 0)) {
                    if (engine.transfer.execute(this, qp.sqSlot(head)) == LoopTransfer.WAIT) {
                        return 1;
                    }
                    if (qp.state() != QpState.SQD) {
                        engine.ring(this);
                        return 1;
                    }
                }
                if (!sqDrainedReported) {
                    sqDrainedReported = true;
                    if (qp.attr().sqdAsyncNotify()) {
                        qp.pdImpl().contextImpl().asyncEvent(AsyncEventType.SQ_DRAINED, qp, null, null,
                                "send queue drained");
                    }
                }
                return 0;
            }
            case RTS -> {
                // fall through to the send loop below
            }
            default -> {
                return 0;
            }
        }
        if (waiting) {
            return 0;
        }
        int n = 0;
        while (n < LoopEngine.BATCH) {
            long head = qp.sqRetired();
            if (head >= qp.sqProduced()) {
                return n;
            }
            SendWqe w = qp.sqSlot(head);
            int r = engine.transfer.execute(this, w);
            if (r == LoopTransfer.WAIT) {
                return n;
            }
            n++;
            if (qp.state() != QpState.RTS) {
                engine.ring(this); // flush what is left on the next pass
                return n;
            }
        }
        engine.ring(this); // more to do: yield to other QPs first
        return n;
    }
}
