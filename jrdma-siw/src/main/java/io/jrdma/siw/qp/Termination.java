package io.jrdma.siw.qp;

import io.jrdma.internal.obs.Trace;
import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateResult;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.WcStatus;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The TERMINATE and error path of a siw QP (Linux {@code siw_qp.c}'s {@code siw_init_terminate},
 * {@code siw_send_terminate} and {@code siw_qp_cm_drop}, and {@code siw_qp_rx.c}'s
 * {@code siw_proc_terminate}): a fatal error moves the QP to ERROR with its affiliated event, sends one
 * TERMINATE that quotes the offending header as siw does, completes what the error completes, flushes
 * and closes the link; a TERMINATE, a close or a lost or stalled link from the other side ends the QP the
 * same way. The table of which error sends which TERMINATE is on {@link SiwQp}. Engine thread only.
 */
final class Termination {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");

    private final SiwQp owner;
    private final QpImpl qp;
    private final QpContext context;
    private final SiwLink link;
    private final ReadQueues queues;

    Termination(SiwQp owner, QpContext context, SiwLink link, ReadQueues queues) {
        this.owner = owner;
        this.qp = owner.qp;
        this.context = context;
        this.link = link;
        this.queues = queues;
    }

    /** siw_tagged_error: DDP has no access-rights code, so siw reports "invalid STag" for it. */
    static TermError taggedError(int r) {
        return switch (r) {
            case AccessResult.BOUNDS -> TermError.DDP_TAGGED_BASE_BOUNDS;
            case AccessResult.PD_MISMATCH -> TermError.DDP_TAGGED_STAG_NOT_ASSOCIATED;
            default -> TermError.DDP_TAGGED_INVALID_STAG;
        };
    }

    /** siw_rdmap_error: errors on a READ request's source are reported at the RDMAP layer. */
    static TermError rdmapError(int r) {
        return switch (r) {
            case AccessResult.BOUNDS -> TermError.RDMAP_BASE_BOUNDS;
            case AccessResult.PD_MISMATCH -> TermError.RDMAP_STAG_NOT_ASSOCIATED;
            case AccessResult.ACCESS_RIGHTS -> TermError.RDMAP_ACCESS_RIGHTS;
            default -> TermError.RDMAP_INVALID_STAG;
        };
    }

    /**
     * Completes the oldest outstanding READ with {@code status}: the WQEs before it were sent and
     * complete successfully, the READ completes in error. The caller moves the QP to ERROR, which
     * flushes the rest.
     */
    void failOrqHead(WcStatus status) {
        if (queues.orqCount() == 0) {
            return;
        }
        long head = queues.orqHead();
        if (head == ReadQueues.RTR_READ) {
            return;
        }
        while (qp.sqRetired() < head) {
            SendWqe e = qp.sqSlot(qp.sqRetired());
            qp.completeSend(e.txState == SiwTx.TX_READ_SENT ? WcStatus.WR_FLUSH_ERR : WcStatus.SUCCESS, (int) e.length);
        }
        if (qp.sqRetired() == head) {
            qp.sqSlot(head).txState = SiwTx.TX_FAILED;
            qp.completeSend(status, 0);
        }
        queues.orqPop();
    }

    /**
     * A TERMINATE from the peer (siw_proc_terminate): read in either control word layout, siw's by
     * default. The QP goes to ERROR with QP_FATAL and everything outstanding is flushed; Linux siw does
     * the same and raises no event. One improvement over siw: when the TERMINATE reports an RDMAP remote
     * protection error about a READ request (or copies no header), the oldest outstanding RDMA READ — the
     * only one the peer can have been answering — completes with REM_ACCESS_ERR instead of WR_FLUSH_ERR,
     * as on InfiniBand.
     */
    void terminateReceived(TerminateResult r) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, owner.tag() + " TERMINATE received: " + r);
        }
        qp.counters().inc(Counter.TERMINATE_RECEIVED);
        qp.counters().inc(Counter.FPDUS_RECEIVED);
        traceReceived(r);
        if (qp.enterError(AsyncEventType.QP_FATAL, "TERMINATE received from the peer: " + r)) {
            if (r instanceof TerminateResult.Decoded d && readProtectionError(d.terminate())) {
                failOrqHead(WcStatus.REM_ACCESS_ERR);
            }
            qp.flush();
        }
        link.close(io.jrdma.verbs.Errno.ECONNRESET.status(), false);
    }

    private void traceReceived(TerminateResult r) {
        if (r instanceof TerminateResult.Decoded d && d.terminate().layer() != null) {
            Terminate t = d.terminate();
            Trace.terminate(context.deviceName(), qp.qpNum(), false, t.layer().name(), t.etype(), t.ecode(),
                    t.error().map(Enum::name).orElse("undefined"));
        }
    }

    /** Whether {@code t} reports an RDMAP remote protection error of a READ request. */
    static boolean readProtectionError(Terminate t) {
        if (t.layer() != io.jrdma.siw.wire.TermLayer.RDMAP || t.etype() != SiwQp.TERM_ETYPE_REMOTE_PROTECTION) {
            return false;
        }
        byte[] ddp = t.ddpHeader();
        return ddp.length == 0 || (ddp[1] & FpduHeader.MASK_OPCODE) == RdmapOpcode.RDMA_READ_REQUEST.value();
    }

    /**
     * A fatal error on the connection (siw_qp_event + siw_init_terminate + siw_qp_cm_drop): the QP goes to
     * ERROR with {@code event}, a best-effort TERMINATE {@code error} goes out (none if {@code null}),
     * every WR is flushed and the connection closes.
     */
    void fatal(TermError error, AsyncEventType event, String why, MemorySegment offending) {
        fatal(error, event, why, offending, null);
    }

    /**
     * {@link #fatal(TermError, AsyncEventType, String, MemorySegment)} for an error that also completes work
     * requests with an error status ({@code completions}: the failed WQE and those before it). The
     * TERMINATE is written to the socket before they run, so it is on the wire before the application can
     * see the error completion: an application that tears the connection down at once (moves the QP to
     * ERROR, closes) cannot get there first and leave the peer with only the close.
     */
    void fatal(TermError error, AsyncEventType event, String why, MemorySegment offending,
            Runnable completions) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, owner.tag() + " " + why + " -> TERMINATE " + error);
        }
        owner.rx.dropMessage();
        boolean first = qp.enterError(event, why);
        if (first && error != null) {
            sendTerminate(error, offending);
        }
        if (completions != null) {
            completions.run();
        }
        if (first) {
            qp.flush();
        }
        link.close(io.jrdma.verbs.Errno.ECONNRESET.status(), false);
    }

    /**
     * Sends TERMINATE {@code error} as siw_send_terminate builds it: for DDP errors and RDMAP remote
     * operation errors the offending segment's DDP header (M, D); for RDMAP remote protection errors also
     * R and, for a READ request, its RDMA header; nothing for catastrophic, version, opcode and LLP errors.
     * The DDP Segment Length is the offender's payload length, as siw fills it in.
     */
    private void sendTerminate(TermError error, MemorySegment offending) {
        if (!link.writable()) {
            return;
        }
        try {
            byte[] b = terminateBytes(error, offending, owner.rx.payloadLength(), link.crc);
            owner.tx.flushTx();
            if (owner.tx.pending() > 0) {
                // siw_send_terminate: never in the middle of an FPDU; the peer learns from the close.
                if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                    LOG.log(System.Logger.Level.DEBUG, owner.tag() + " TERMINATE not sent: a transmit is in progress");
                }
                return;
            }
            link.writeFully(ByteBuffer.wrap(b));
            qp.counters().inc(Counter.TERMINATE_SENT);
            qp.counters().inc(Counter.FPDUS_SENT);
            Trace.terminate(context.deviceName(), qp.qpNum(), true, error.layer().name(), error.etype(), error.ecode(),
                    error.name());
        } catch (RuntimeException e) {
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, owner.tag() + " TERMINATE not sent: " + e);
            }
        }
    }

    /**
     * The TERMINATE FPDU for {@code error} about the header in {@code offending} (its ULPDU_Length first;
     * {@code null} when there is none), in siw's control word layout, CRC sealed when {@code crcOn}.
     */
    static byte[] terminateBytes(TermError error, MemorySegment offending, int payloadLength, boolean crcOn) {
        Terminate t = Terminate.of(error);
        boolean layoutUnknown = error == TermError.DDP_TAGGED_INVALID_VERSION
                || error == TermError.DDP_UNTAGGED_INVALID_VERSION || error == TermError.RDMAP_INVALID_VERSION
                || error == TermError.RDMAP_UNEXPECTED_OPCODE;
        boolean copies = error.layer() == io.jrdma.siw.wire.TermLayer.DDP
                || error.layer() == io.jrdma.siw.wire.TermLayer.RDMAP && error.etype() != 0;
        if (offending != null && copies && !layoutUnknown) {
            int ctrl = Short.toUnsignedInt(offending.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED
                    .withOrder(java.nio.ByteOrder.BIG_ENDIAN), FpduHeader.CTRL_OFFSET));
            boolean tagged = (ctrl & FpduHeader.FLAG_TAGGED) != 0;
            int hl = tagged ? FpduHeader.TAGGED_LENGTH : FpduHeader.UNTAGGED_LENGTH;
            byte[] ddp = offending.asSlice(FpduHeader.MPA_LENGTH_FIELD_LENGTH, hl
                    - FpduHeader.MPA_LENGTH_FIELD_LENGTH).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            if (error.layer() == io.jrdma.siw.wire.TermLayer.RDMAP
                    && error.etype() == SiwQp.TERM_ETYPE_REMOTE_PROTECTION) {
                byte[] rdma = (ctrl & FpduHeader.MASK_OPCODE) == RdmapOpcode.RDMA_READ_REQUEST.value()
                        ? offending.asSlice(FpduHeader.UNTAGGED_LENGTH, ReadRequestHeader.RDMAP_LENGTH)
                                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)
                        : new byte[0];
                t = Terminate.withRdmaHeader(error, payloadLength, ddp, rdma);
            } else {
                t = Terminate.withDdpHeader(error, payloadLength, ddp);
            }
        }
        // siw sends (and parses) the control word in its little-endian bitfield layout.
        byte[] b = t.toBytes(TermLayout.SIW_LITTLE_ENDIAN);
        if (crcOn) {
            new MpaCrc().seal(MemorySegment.ofArray(b), 0);
        }
        return b;
    }

    void peerClosed() {
        // The peer closed its side: an orderly disconnect (or the end of ours).
        SiwQp.Link l = link.cm;
        boolean ours = link.state == SiwLink.State.CLOSING;
        if (!ours && l != null) {
            l.peerClosed();
        }
        link.taps.closed(false);
        if (qp.enterError(null, null)) {
            qp.flush();
        }
        link.close(0, false);
    }

    void linkTimedOut(long stallNanos) {
        String why = "no byte in or out for " + stallNanos / 1_000_000 + " ms while waiting on the peer";
        LOG.log(System.Logger.Level.DEBUG, owner.tag() + " connection timed out: " + why);
        context.linkTimedOut();
        if (qp.enterError(AsyncEventType.QP_FATAL, "connection timed out: " + why)) {
            qp.flush();
        }
        link.close(io.jrdma.verbs.Errno.ETIMEDOUT.status(), true);
    }

    void linkLost(IOException e) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, owner.tag() + " connection lost: " + e);
        }
        if (qp.enterError(AsyncEventType.QP_FATAL, "connection lost: " + e.getMessage())) {
            qp.flush();
        }
        link.close(io.jrdma.verbs.Errno.ECONNRESET.status(), true);
    }

}
