package io.jrdma.rxe.qp;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.engine.Doorbell;
import io.jrdma.internal.engine.Timer;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.rxe.net.Peer;
import io.jrdma.rxe.net.RxeEngine;
import io.jrdma.rxe.net.RxePacket;
import io.jrdma.rxe.net.RxePort;
import io.jrdma.rxe.net.Taps;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Psn;
import io.jrdma.spi.CounterSet;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RnrTimer;

/**
 * An rxe queue pair's transport (Linux {@code struct rxe_qp} with its three tasks): the
 * {@link Requester} turns send WQEs into packets, the {@link Completer} turns ACKs, NAKs and
 * responses into send completions and retries, the {@link Responder} executes incoming requests and
 * answers them. All three run on the device's {@link RxeEngine}, which also owns the QP's two
 * timers (retransmit, RNR): on its thread or, in application-driven mode, on the thread that posts to
 * the QP or polls one of its CQs, one thread at a time. Core's {@link QpImpl} holds the state machine, the attributes and the
 * queues; this class follows its state lazily: before it handles a packet or a doorbell it picks up
 * a new state and applies what that state needs (the responder's PSN and path at RTR, the
 * requester's at RTS). RESET and destroy run synchronously on the engine.
 */
public final class RxeQp implements ProviderQp, RxeEngine.Task, RxePort.Qp {
    /** Packets one QP sends per doorbell before others get a turn. */
    static final int BUDGET = 64;

    final QpImpl qp;
    final RxePort port;
    final RxeEngine engine;
    /** The QP's counters (this engine writes them). */
    final CounterSet counters;
    final Requester requester;
    final Completer completer;
    final Responder responder;
    final Timer retransmitTimer = new Timer(this::onRetransmitTimer);
    final Timer rnrTimer = new Timer(this::onRnrTimer);
    private final Doorbell<RxeEngine.Task> bell = new Doorbell<>(this);
    private volatile boolean dead;
    private QpState seen = QpState.RESET;
    private boolean responderReady;
    private boolean requesterReady;
    private boolean sqDrainedReported;
    /** The connected peer (RC/UC), resolved at RTR. */
    Peer peer;
    /** The path MTU in bytes (RC/UC), or the port MTU (UD). */
    int mtu;
    /** Set when WQEs became DONE or ERROR and the completer should look at them. */
    boolean completerWanted;
    /** The retransmit timeout, adapted to the round trips measured. */
    final RetransmitTimeout rto = new RetransmitTimeout();
    /** Whether a packet is being timed, the last PSN it covers, and when it left. */
    private boolean timing;
    private int timedPsn;
    private long timedAt;
    /** The PSN after the highest one sent: PSNs before it are retransmissions. */
    private int freshPsn;
    /**
     * When a retransmit timeout starts to count against {@code retry_cnt}: one ACK timeout (the
     * attribute) after the last progress, or after the first packet sent when nothing was outstanding.
     */
    private long retryDeadline;

    /**
     * The transport half of {@code qp} on the device's {@code port}.
     *
     * @param qp the QP
     * @param port the device's port
     * @param engine the engine
     */
    public RxeQp(QpImpl qp, RxePort port, RxeEngine engine) {
        this.qp = qp;
        this.port = port;
        this.engine = engine;
        this.counters = qp.counters();
        this.mtu = port.mtu().bytes();
        this.requester = new Requester(this);
        this.completer = new Completer(this);
        this.responder = new Responder(this);
        if (engine.applicationDriven()) {
            // An empty poll of either CQ runs the engine's cycle: the poller reads the socket itself.
            qp.sendCq().addProgressHook(engine);
            qp.recvCq().addProgressHook(engine);
        }
    }

    /**
     * The doorbell that schedules this QP on its engine.
     *
     * @return the doorbell that schedules this QP on its engine
     */
    public Doorbell<RxeEngine.Task> bell() {
        return bell;
    }

    /**
     * The core QP.
     *
     * @return the core QP
     */
    public QpImpl core() {
        return qp;
    }

    // ------------------------------------------------------------------------------------------ core hooks

    @Override
    public void modified(QpState from, QpState to, int mask) {
        if (to == QpState.RESET) {
            engine.runSync(this::reset);
            return;
        }
        engine.ring(bell);
    }

    @Override
    public void sendPosted() {
        engine.post(bell);
    }

    @Override
    public void recvPosted() {
        if (qp.state() == QpState.ERR) {
            engine.post(bell);
        }
    }

    @Override
    public void destroy() {
        engine.runSync(() -> {
            dead = true;
            flushAll();
            port.unregister(qp.qpNum(), this);
        });
    }

    // ------------------------------------------------------------------------------------------ engine side

    /** Schedules this QP again (engine holder or any). */
    void ring() {
        engine.ring(bell);
    }

    /** Picks up a new core state (engine holder). */
    private void sync() {
        QpState s = qp.state();
        if (s == seen) {
            return;
        }
        seen = s;
        boolean receiving = s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
        boolean sending = s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
        QpAttr a = qp.attr();
        if (receiving && !responderReady) {
            responderReady = true;
            if (qp.type() == QpType.UD) {
                mtu = port.mtu().bytes();
                peer = null;
            } else {
                mtu = a.pathMtu() != null ? a.pathMtu().bytes() : port.mtu().bytes();
                AhAttr av = a.ahAttr();
                peer = av == null ? null : port.peer(av.dgid());
            }
            responder.reset(a);
        }
        if (sending && !requesterReady) {
            requesterReady = true;
            requester.reset(a);
            completer.reset(a);
            timing = false;
            freshPsn = requester.psn;
        }
        if (s == QpState.RTS) {
            sqDrainedReported = false;
        }
    }

    /**
     * A packet for this QP arrived (engine holder; the packet is valid for this call only).
     *
     * @param p the properties
     */
    @Override
    public void receive(RxePacket p) {
        if (dead) {
            return;
        }
        sync();
        QpState s = qp.state();
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.ERR || !serviceMatches(p.opcode())) {
            // IBTA 10.3.1: a QP in RESET, INIT or ERR silently drops what arrives.
            counters.inc(Counter.RCVD_DROPPED);
            return;
        }
        Peer from = peer;
        if (from != null && !fromPeer(p, from)) {
            // rxe_recv.c check_addr: an RC or UC QP takes packets only from the address its AV names, so
            // an off-path sender that guessed the QPN and PSN can neither write nor acknowledge.
            counters.inc(Counter.RCVD_DROPPED);
            return;
        }
        counters.inc(Counter.RCVD_PKTS);
        PacketTap tap = qp.capture();
        if (tap != null) {
            capture(tap, p);
        }
        if (p.opcode().isResponse()) {
            if (requesterReady && qp.type() == QpType.RC) {
                int before = completer.psn;
                completer.run(p);
                if (completer.psn != before) {
                    progressed(Psn.diff(completer.psn, before));
                }
                // rxe's completer task runs again until it finds nothing: that pass completes what
                // needs no ACK and keeps the retransmit timer running while something is outstanding.
                completer.run(null);
                ring();
            } else {
                counters.inc(Counter.RCVD_DROPPED);
            }
            return;
        }
        if (qp.type() == QpType.UD && p.deth.qkey() != qp.attr().qkey()) {
            counters.inc(Counter.RCVD_DROPPED); // rxe check_keys: a Q_Key violation drops the datagram
            return;
        }
        if (s == QpState.RTR) {
            qp.communicationEstablished();
        }
        responder.receive(p);
    }

    private static boolean fromPeer(RxePacket p, Peer peer) {
        if (peer.isIpv6()) {
            return p.sourceIpv4() == 0 && p.sourceHigh() == peer.high() && p.sourceLow() == peer.low();
        }
        return p.sourceIpv4() == peer.ipv4();
    }

    private void capture(PacketTap tap, RxePacket p) {
        long m = p.ipv4Match();
        boolean v4 = !port.udp().isIpv6();
        boolean solved = m != Icrc.NO_MATCH;
        Taps.received(tap, port.udp(), v4, p.sourceIpv4(), p.sourceHigh(), p.sourceLow(), p.sourcePort(),
                solved ? Icrc.matchedId(m) : 0, solved ? Icrc.matchedFlags(m) : 0x4000, p.segment(), p.offset(),
                p.length());
    }

    private boolean serviceMatches(IbOpcode op) {
        return switch (qp.type()) {
            case RC -> op.service() == IbOpcode.Service.RC;
            case UC -> op.service() == IbOpcode.Service.UC;
            case UD -> op.service() == IbOpcode.Service.UD;
        };
    }

    /**
     * The doorbell rang: run what is due (engine holder). Returns the work done.
     *
     * @return the doorbell rang: run what is due (engine holder)
     */
    @Override
    public int process() {
        if (dead) {
            return 0;
        }
        sync();
        QpState s = qp.state();
        if (s == QpState.ERR) {
            return flushAll();
        }
        if (s == QpState.RESET || s == QpState.INIT) {
            return 0;
        }
        int work = responder.resume(BUDGET);
        if (s == QpState.SQE) {
            work += qp.flushSend();
        } else if (s != QpState.RTR) {
            if (completerWanted || completer.timedOut()) {
                completerWanted = false;
                completer.run(null);
            }
            work += requester.run(BUDGET);
            if (completerWanted) {
                completerWanted = false;
                completer.run(null);
            }
            if (s == QpState.SQD) {
                reportDrained();
            }
        }
        if (qp.state() == QpState.ERR || qp.state() == QpState.SQE) {
            ring(); // flush on the next pass
        }
        return work;
    }

    private void reportDrained() {
        if (!sqDrainedReported && requester.drained()) {
            sqDrainedReported = true;
            if (qp.attr().sqdAsyncNotify()) {
                qp.pdImpl().contextImpl().asyncEvent(AsyncEventType.SQ_DRAINED, qp, null, null,
                        "send queue drained");
            }
        }
    }

    /** ERR: every outstanding WQE completes with WR_FLUSH_ERR; timers and queued packets go. */
    private int flushAll() {
        engine.timers().cancel(retransmitTimer);
        engine.timers().cancel(rnrTimer);
        responder.clear();
        completerWanted = false;
        return qp.flush();
    }

    private void reset() {
        flushAll();
        requester.clear();
        completer.clear();
        rto.clear();
        timing = false;
        responderReady = false;
        requesterReady = false;
        sqDrainedReported = false;
        seen = QpState.RESET;
        peer = null;
    }

    /** A fatal transport error on this QP: ERR with an affiliated event (null for none). */
    void fatal(AsyncEventType event, String why) {
        qp.enterError(event, why);
        ring();
    }

    /** A failed send WQE: RC goes to ERR, UD and UC to SQE (IBTA 10.3.1.6, as the loop provider). */
    void sendQueueError() {
        if (qp.type() == QpType.RC) {
            qp.enterError(null, null);
        } else {
            qp.enterSendQueueError();
        }
        ring();
    }

    /**
     * Sends the packet the requester or responder built in the engine's transmit buffer to {@code to},
     * counting it. Returns false if the socket is full (the caller retries the same packet).
     */
    boolean transmit(Peer to, int length) {
        if (!engine.transmit(port, to, length)) {
            return false;
        }
        counters.inc(Counter.SENT_PKTS);
        PacketTap tap = qp.capture();
        if (tap != null) {
            Taps.sent(tap, port.udp(), port.udp().localPort(), to, engine.txSegment(), length);
        }
        return true;
    }

    /**
     * Arms the retransmit timer unless it runs or the ACK timeout is 0 (infinite): to the adapted
     * timeout, but no later than the moment a timeout starts to count against {@code retry_cnt}.
     */
    void armRetransmit(boolean restart) {
        long t = RnrTimer.ackTimeoutNanos(qp.attr().timeout());
        if (t > 0 && (restart || !retransmitTimer.isArmed())) {
            long now = now();
            long d = rto.rto(t);
            long left = retryDeadline - now;
            if (left > 0 && left < d) {
                d = left;
            }
            engine.timers().scheduleAt(retransmitTimer, now + d);
        }
    }

    /**
     * The requester sent an RC packet with PSNs {@code psn..last} (engine holder): a packet never
     * sent before may be timed (Karn: never a retransmission); when nothing was outstanding the
     * {@code retry_cnt} clock starts with it and the retransmit timer restarts (it may still run,
     * late, from an earlier packet). Then arms the timer if it is not running.
     */
    void sentRc(int psn, int last, boolean ackReq) {
        if (Psn.diff(psn, freshPsn) < 0) {
            armRetransmit(false); // a retransmission
            return;
        }
        freshPsn = Psn.next(last);
        boolean idle = psn == completer.psn;
        if (idle || ackReq && !timing) {
            long now = now();
            if (idle) {
                long t = RnrTimer.ackTimeoutNanos(qp.attr().timeout());
                retryDeadline = now + t;
            }
            if (ackReq && !timing) {
                timing = true;
                timedPsn = last;
                timedAt = now;
            }
        }
        armRetransmit(idle);
    }

    /** Whether {@code psn} was ever sent (a response for a later one answers nothing sent). */
    boolean wasSent(int psn) {
        return Psn.diff(psn, freshPsn) < 0;
    }

    /** The requester rewinds: what is in flight will be sent again, so it times nothing (Karn). */
    void retrying() {
        timing = false;
    }

    /**
     * The completer's PSN advanced by {@code acked}: the window grows, a round trip may be measured,
     * and the timeout is the estimate again.
     */
    private void progressed(int acked) {
        long now = now();
        rto.progress();
        requester.acknowledged(acked);
        retryDeadline = now + RnrTimer.ackTimeoutNanos(qp.attr().timeout());
        if (timing && Psn.diff(completer.psn, timedPsn) > 0) {
            timing = false;
            rto.sample(now - timedAt);
        }
    }

    /**
     * A retransmit timeout fired: whether it counts against {@code retry_cnt} (a full ACK timeout
     * has passed without progress since the last one that counted, or the timer already waited the
     * ACK timeout itself); the next timeout doubles.
     */
    boolean timeoutCounts() {
        long t = RnrTimer.ackTimeoutNanos(qp.attr().timeout());
        // A timer that has backed off to the ACK timeout waited a whole one: that timeout counts too.
        boolean full = rto.rto(t) >= t;
        rto.backOff();
        long now = now();
        if (full || now - retryDeadline >= 0) {
            retryDeadline = now + RnrTimer.ackTimeoutNanos(qp.attr().timeout());
            return true;
        }
        return false;
    }

    private long now() {
        return engine.timers().clock().nanoTime();
    }

    /** Waits the RNR timer of code {@code code} (IBTA Table 45) before retrying. */
    void armRnr(int code) {
        engine.timers().schedule(rnrTimer, RnrTimer.nanos(code));
    }

    private void onRetransmitTimer() {
        if (!dead) {
            completer.timeout();
            ring();
        }
    }

    private void onRnrTimer() {
        if (!dead) {
            requester.rnrTimerFired();
            ring();
        }
    }

    /** The send slot at an index (engine holder). */
    SendWqe slot(long index) {
        return qp.sqSlot(index);
    }

    /**
     * The transport state for diagnostics (racy: read from another thread while the engine runs).
     *
     * @return the transport state for diagnostics (racy: read from another thread while the engine runs)
     */
    public String describe() {
        long head = qp.sqRetired();
        String w = head < qp.sqProduced() ? " head " + qp.sqSlot(head).opcode + " state "
                + WqeState.state(qp.sqSlot(head)) + " psn " + Integer.toHexString(qp.sqSlot(head).txFirstSeq) + ".."
                + Integer.toHexString(qp.sqSlot(head).txLastSeq) + " off " + qp.sqSlot(head).txOffset : "";
        return this + " req.psn " + Integer.toHexString(requester.psn) + " req.index " + requester.index
                + " needRetry " + requester.needRetry + " window " + requester.window + " rto "
                + rto.rto(RnrTimer.ackTimeoutNanos(qp.attr().timeout())) / 1_000 + " us comp.psn "
                + Integer.toHexString(completer.psn)
                + " retransmit armed " + retransmitTimer.isArmed() + " sq " + head + ".." + qp.sqProduced() + w
                + " " + responder.describe();
    }

    @Override
    public String toString() {
        return "rxe " + qp;
    }
}
