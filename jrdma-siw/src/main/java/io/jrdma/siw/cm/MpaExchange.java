package io.jrdma.siw.cm;

import io.jrdma.siw.qp.SiwQp;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaProblem;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaResult;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * MPA frame I/O for the handshake on a siw engine (siw_cm.c's {@code siw_recv_mpa_rr} and
 * {@code siw_send_mpareqrep}) over non-blocking channels: read the 20-byte header, check it, then read
 * exactly PD_Length bytes, so no FPDU byte that follows is consumed.
 */
final class MpaExchange {
    /**
     * A decoded request waiting for accept or reject, with the peer's IRD and ORD as this side takes them:
     * the v2 block's 14-bit values capped at siw's maxima when the request is read, as {@code
     * siw_proc_mpareq} caps them (a revision 1 request, or one without the block, counts as 1/1). Only
     * the capped values reach iw_cm and the accept: no wire value above what the rdma_cm API holds.
     *
     * @param frame the request as it came
     * @param peerIrd the peer's IRD, 0 to {@link SiwQp#MAX_ORD_IRD}
     * @param peerOrd the peer's ORD, 0 to {@link SiwQp#MAX_ORD_IRD}
     */
    record Request(MpaRequest frame, int peerIrd, int peerOrd) {
        /** The request {@code frame} with its depths capped. */
        static Request of(MpaRequest frame) {
            return new Request(frame, frame.v2().map(c -> Math.min(c.ird(), SiwQp.MAX_ORD_IRD)).orElse(1),
                    frame.v2().map(c -> Math.min(c.ord(), SiwQp.MAX_ORD_IRD)).orElse(1));
        }

        /** Whether the request carries the v2 block (revision 2 with H). */
        boolean enhanced() {
            return frame.revision() == MpaFrame.REVISION_2 && frame.v2().isPresent();
        }
    }

    /** The frame could not be read or is not acceptable. */
    static final class MpaException extends Exception {
        private static final long serialVersionUID = 1L;
        final MpaResult.Invalid invalid;

        MpaException(MpaResult.Invalid invalid) {
            super(invalid.problem() + ": " + invalid.detail());
            this.invalid = invalid;
        }
    }

    /** The initiator sent bytes behind its request before the reply: siw drops the connection, no reply. */
    static final class ExtraDataException extends IOException {
        private static final long serialVersionUID = 1L;

        ExtraDataException() {
            super("the peer sent data behind its MPA request, before the reply");
        }
    }

    /** How long {@link #writeFully} waits for room in the send buffer. */
    static final long WRITE_TIMEOUT_NANOS = 5_000_000_000L;
    /** How long {@link #writeFully} pauses when the send buffer is full. */
    private static final long WRITE_RETRY_NANOS = 100_000;

    private MpaExchange() {
    }

    /**
     * Reads one MPA frame from a non-blocking channel, across as many readiness events as it takes
     * ({@code siw_recv_mpa_rr}, which siw likewise runs on each socket data-ready callback): the
     * 20-byte header first, then exactly PD_Length bytes, so no FPDU byte that follows is consumed.
     * Only a PD_Length over the limit is refused before the private data is read; key, revision and the
     * rest are checked on the whole frame, so a refused frame leaves nothing unread (the close is a FIN,
     * not a reset; verified: siw closes with FIN after a bad key or revision 3, with RST after PD_Length
     * 257). Timeouts are enforced by the caller's timer. One thread at a time (the engine's).
     *
     * <p>The initiator sends nothing after its request until the reply has come (RFC 5044): bytes
     * already behind a request when it is complete are a protocol error, as {@code siw_recv_mpa_rr}
     * finds them ("peer sent extra data").
     */
    static final class Reader {
        private final boolean request;
        private final ByteBuffer head = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH);
        private final ByteBuffer probe = ByteBuffer.allocate(1);
        private ByteBuffer all;

        /** A reader of a request when {@code request}, else of a reply. */
        Reader(boolean request) {
            this.request = request;
        }

        /**
         * Reads what the channel has; returns the frame once complete, {@code null} while bytes are
         * missing.
         *
         * @throws EOFException if the peer closed before the frame was complete
         * @throws MpaException if the frame is not acceptable
         * @throws ExtraDataException if a request was followed by more bytes
         */
        MpaFrame read(SocketChannel ch) throws IOException, MpaException {
            if (all == null) {
                if (ch.read(head) < 0) {
                    throw new EOFException("connection closed during the MPA exchange");
                }
                if (head.hasRemaining()) {
                    return null;
                }
                MemorySegment seg = MemorySegment.ofArray(head.array());
                MpaResult r = decode(seg, MpaFrame.HEADER_LENGTH);
                if (r instanceof MpaResult.Invalid inv && inv.problem() == MpaProblem.PD_LENGTH_OVER_LIMIT) {
                    throw new MpaException(inv);
                }
                all = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + MpaFrame.pdLength(seg, 0));
                all.put(head.array());
            }
            if (all.hasRemaining() && ch.read(all) < 0) {
                throw new EOFException("connection closed during the MPA exchange");
            }
            if (all.hasRemaining()) {
                return null;
            }
            MpaFrame f = switch (decode(MemorySegment.ofArray(all.array()), all.capacity())) {
                case MpaResult.Decoded d -> d.frame();
                case MpaResult.Invalid inv -> throw new MpaException(inv);
                case MpaResult.NeedMore n -> throw new IOException("MPA frame still incomplete after PD_Length");
            };
            if (request && ch.read(probe) > 0) {
                throw new ExtraDataException();
            }
            return f;
        }

        /** The 20 header bytes once read (the request's flags and revision a reject echoes). */
        byte[] header() {
            return head.array().clone();
        }

        private MpaResult decode(MemorySegment seg, int length) {
            return request ? MpaFrame.decodeRequest(seg, 0, length) : MpaFrame.decodeReply(seg, 0, length);
        }
    }

    /** Writes a frame completely. */
    static void write(SocketChannel ch, MpaFrame f) throws IOException {
        writeFully(ch, ByteBuffer.wrap(f.toBytes()));
    }

    /**
     * Writes {@code b} completely. The channel is non-blocking; the frames written this way (an MPA
     * reply or reject, a TERMINATE before the QP has the socket: at most a few hundred bytes, the first
     * or second thing sent on the connection) fit in an empty send buffer, so the loop only waits if the
     * peer stopped reading, and gives up after {@link #WRITE_TIMEOUT_NANOS}.
     */
    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        long start = System.nanoTime();
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                if (System.nanoTime() - start > WRITE_TIMEOUT_NANOS) {
                    throw new IOException("the peer does not read the MPA exchange");
                }
                LockSupport.parkNanos(WRITE_RETRY_NANOS);
            }
        }
    }
}
