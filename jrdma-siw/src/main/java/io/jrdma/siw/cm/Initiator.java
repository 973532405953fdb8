package io.jrdma.siw.cm;

import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.engine.Timer;
import io.jrdma.internal.obs.Trace;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaProblem;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.verbs.Errno;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The active side of one MPA exchange (siw_connect's send, then siw_proc_mpareply) on the QP's engine:
 * send the request, wait for the reply (at most the initiator timeout), check and negotiate, hand the
 * socket to the QP, send the RTR if peer-to-peer mode was agreed. Engine thread, but {@link #abort}.
 *
 * <p>Outcomes, as {@code connectReply} statuses: 0; -ECONNREFUSED for a reject (a consumer reject,
 * SPEC rule 11; siw reports -ECONNRESET); -ECONNRESET for markers, a missing C when CRC is required, a
 * close or a reset; -ETIMEDOUT when the reply did not come in time; -EINVAL for a protocol failure,
 * after a TERMINATE as siw sends it: LLP/MPA "invalid request/reply" for a bad key, "insufficient
 * IRD" for an ORD above 128, "no matching RTR" when peer-to-peer mode found no common RTR type. A
 * revision 1 reply to a revision 2 request is accepted (RFC 6581 §5 fallback: IRD/ORD 1/1, no RTR);
 * siw refuses it with -ECONNRESET.
 */
final class Initiator implements SiwEngine.Schedulable, SiwCm.Handshake {
    private final CmContext context;
    private final SiwConfig config;
    private final SiwConnection conn;
    private final SiwQp qp;
    private final SiwEngine engine;
    private final MpaRequest req;
    private final IwConnParam param;
    private final MpaExchange.Reader reader = new MpaExchange.Reader(false);
    private final Timer deadline = new Timer(this::expired);
    private ByteBuffer out;
    private SelectionKey key;
    private boolean done;

    Initiator(SiwCm cm, SiwConnection conn, SiwQp qp, MpaRequest req, IwConnParam param) {
        this.context = cm.context();
        this.config = cm.config();
        this.conn = conn;
        this.qp = qp;
        this.engine = qp.engine();
        this.req = req;
        this.param = param;
    }

    /** Engine thread: the request goes out, then the reply is awaited. */
    void start() {
        SocketChannel ch = conn.channel;
        if (done) {
            return; // aborted before it started
        }
        try {
            out = ByteBuffer.wrap(req.toBytes());
            ch.write(out);
            if (!out.hasRemaining()) {
                context.counters().mpaFrameSent();
            }
            key = ch.register(engine.selector(), out.hasRemaining() ? SelectionKey.OP_READ
                    | SelectionKey.OP_WRITE : SelectionKey.OP_READ, this);
        } catch (IOException e) {
            finish();
            SiwCm.release(engine, key, ch, false);
            conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
            return;
        }
        engine.timers.schedule(deadline, config.initiatorTimeout().toNanos());
    }

    @Override
    public int onWritable() {
        if (done || !out.hasRemaining()) {
            return 0;
        }
        try {
            conn.channel.write(out);
        } catch (IOException e) {
            return failed();
        }
        if (!out.hasRemaining()) {
            context.counters().mpaFrameSent();
            key.interestOps(SelectionKey.OP_READ);
        }
        return 1;
    }

    @Override
    public int onReadable() {
        if (done) {
            return 0;
        }
        MpaReply reply;
        try {
            MpaFrame f = reader.read(conn.channel);
            if (f == null) {
                return 1;
            }
            reply = (MpaReply) f;
        } catch (MpaExchange.MpaException e) {
            finish();
            MpaProblem problem = e.invalid.problem();
            if (problem == MpaProblem.BAD_KEY) {
                refuseReply(engine, key, conn, TermError.MPA_INVALID_REQUEST_REPLY, Errno.EINVAL);
            } else if (problem == MpaProblem.MARKERS_NOT_SUPPORTED) {
                refuseReply(engine, key, conn, null, Errno.ECONNRESET);
            } else {
                refuseReply(engine, key, conn, null, Errno.EINVAL);
            }
            return 1;
        } catch (IOException e) {
            return failed();
        }
        finish();
        replied(reply);
        return 1;
    }

    /** A close or a reset before the reply. */
    private int failed() {
        finish();
        SiwCm.release(engine, key, conn.channel, false);
        conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
        return 1;
    }

    /** The reply did not come in time: siw releases the socket (a FIN). */
    private void expired() {
        if (!done) {
            finish();
            SiwCm.release(engine, key, conn.channel, false);
            conn.upcalls().connectReply(conn, Errno.ETIMEDOUT.status(), 0, 0, null);
        }
    }

    /** The owner closed the connection (its socket is closed): the connect fails as on a reset. */
    @Override
    public void abort() {
        engine.runOrQueue(() -> {
            if (!done) {
                failed();
            }
        });
    }

    private void finish() {
        done = true;
        conn.handshake = null;
        engine.timers.cancel(deadline);
    }

    @Override
    public int onDoorbell() {
        return 0;
    }

    private void replied(MpaReply reply) {
        SocketChannel ch = conn.channel;
        if (reply.reject()) {
            context.counters().mpaRejectReceived();
            SiwCm.release(engine, key, ch, false);
            conn.upcalls().connectReply(conn, Errno.ECONNREFUSED.status(), 0, 0, reply.privateData());
            return;
        }
        if (config.crcRequired() && !reply.crc()) {
            refuseReply(engine, key, conn, null, Errno.ECONNRESET);
            return;
        }
        // RFC 5044 §7.1: CRC is on when either side asks for it; siw honours a C in the reply.
        boolean crc = reply.crc() || config.crcRequired();
        MpaV2Ctrl asked = req.v2().orElse(null);
        int ird = asked != null ? asked.ird() : Math.max(0, Math.min(param.ird(), SiwQp.MAX_ORD_IRD));
        int ord = asked != null ? asked.ord() : Math.max(0, Math.min(param.ord(), SiwQp.MAX_ORD_IRD));
        int peerIrd = 1;
        int peerOrd = 1;
        boolean rtrWrite = false;
        boolean rtrRead = false;
        if (reply.revision() == MpaFrame.REVISION_2 && reply.v2().isPresent()) {
            MpaV2Ctrl c = reply.v2().get();
            // The responder's IRD only bounds our ORD: what it says above siw's maximum is reported as
            // that maximum, as the request's depths are, so no wire value above the rdma_cm API's range
            // goes up.
            peerIrd = Math.min(c.ird(), SiwQp.MAX_ORD_IRD);
            peerOrd = c.ord();
            if (peerOrd > SiwQp.MAX_ORD_IRD) {
                // siw_proc_mpareply: the responder's ORD exceeds what this side can ever serve.
                refuseReply(engine, key, conn, TermError.MPA_INSUFFICIENT_IRD, Errno.EINVAL);
                return;
            }
            if (asked != null && asked.peerToPeer()) {
                // siw looks at the W and R bits of the reply only, and prefers the WRITE.
                rtrWrite = asked.zeroLengthWriteRtr() && c.zeroLengthWriteRtr();
                rtrRead = !rtrWrite && asked.zeroLengthReadRtr() && c.zeroLengthReadRtr();
                if (!rtrWrite && !rtrRead) {
                    refuseReply(engine, key, conn, TermError.MPA_NO_MATCHING_RTR, Errno.EINVAL);
                    return;
                }
            }
        }
        // Relaxed IRD negotiation (siw): our ORD is at most what the responder's IRD allows, our IRD
        // covers what its ORD may send.
        int myOrd = Math.min(ord, peerIrd);
        int myIrd = Math.max(ird, Math.min(peerOrd, SiwQp.MAX_ORD_IRD));
        if (rtrRead) {
            myOrd = Math.max(myOrd, 1);
        }
        conn.holdUpcalls();
        try {
            // On the QP's engine already: the QP takes the socket (and this key) over in place.
            qp.captureInfo(conn.localAddress(), conn.remoteAddress(), true, req.toBytes(), reply.toBytes());
            qp.attach(ch, conn, crc, myOrd, myIrd, null, false, config.maxSegment());
            if (rtrWrite || rtrRead) {
                qp.sendRtr(rtrRead);
            }
        } catch (IOException | RuntimeException e) {
            SiwCm.release(engine, key, ch, true);
            conn.upcalls().connectReply(conn, Errno.ECONNRESET.status(), 0, 0, null);
            conn.release(false);
            return;
        }
        conn.attached(qp);
        conn.upcalls().connectReply(conn, 0, peerIrd, peerOrd, reply.privateData());
        conn.release(true);
    }

    /**
     * Gives up on a reply: a TERMINATE {@code term} first if given (siw sends it on the socket before the
     * QP has a CRC context, so with a zero trailer), then the socket is released (FIN) and the connect
     * fails with {@code status}.
     */
    private void refuseReply(SiwEngine engine, SelectionKey key, SiwConnection conn, TermError term, Errno status) {
        if (term != null) {
            try {
                MpaExchange.writeFully(conn.channel, java.nio.ByteBuffer.wrap(Terminate.of(term)
                        .toBytes(TermLayout.SIW_LITTLE_ENDIAN)));
                context.counters().terminateSent();
                Trace.terminate(context.deviceName(), 0, true, term.layer().name(), term.etype(), term.ecode(),
                        term.name());
            } catch (IOException e) {
                // the peer is gone anyway
            }
        }
        SiwCm.release(engine, key, conn.channel, false);
        conn.upcalls().connectReply(conn, status.status(), 0, 0, null);
    }
}
