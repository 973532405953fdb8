package io.jrdma.siw.cm;

import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaProblem;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaResult;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Blocking MPA frame I/O for the handshake threads (siw_cm.c's {@code siw_recv_mpa_rr} and
 * {@code siw_send_mpareqrep}): read the 20-byte header, check it, then read exactly PD_Length bytes,
 * so no FPDU byte that follows is consumed. Timeouts are enforced by whoever closes the channel.
 */
final class MpaExchange {
    /** A decoded request waiting for accept or reject. */
    record Request(MpaRequest frame) {
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

    private MpaExchange() {
    }

    static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("connection closed during the MPA exchange");
            }
        }
    }

    /**
     * Reads one MPA frame: a request when {@code request}, else a reply. As siw_recv_mpa_rr, only a
     * PD_Length over the limit is refused before the private data is read; key, revision and the rest
     * are checked on the whole frame, so a refused frame leaves nothing unread (the close is a FIN, not
     * a reset; verified: siw closes with FIN after a bad key or revision 3, with RST after PD_Length 257).
     */
    static MpaFrame read(SocketChannel ch, boolean request) throws IOException, MpaException {
        ByteBuffer head = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH);
        readFully(ch, head);
        MemorySegment seg = MemorySegment.ofArray(head.array());
        MpaResult r = request ? MpaFrame.decodeRequest(seg, 0, MpaFrame.HEADER_LENGTH)
                : MpaFrame.decodeReply(seg, 0, MpaFrame.HEADER_LENGTH);
        if (r instanceof MpaResult.Invalid inv && inv.problem() == MpaProblem.PD_LENGTH_OVER_LIMIT) {
            throw new MpaException(inv);
        }
        int pd = MpaFrame.pdLength(seg, 0);
        ByteBuffer all = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + pd);
        all.put(head.array());
        readFully(ch, all);
        MemorySegment whole = MemorySegment.ofArray(all.array());
        r = request ? MpaFrame.decodeRequest(whole, 0, all.capacity()) : MpaFrame.decodeReply(whole, 0,
                all.capacity());
        return switch (r) {
            case MpaResult.Decoded d -> d.frame();
            case MpaResult.Invalid inv -> throw new MpaException(inv);
            case MpaResult.NeedMore n -> throw new IOException("MPA frame still incomplete after PD_Length");
        };
    }

    /** Writes a frame completely. */
    static void write(SocketChannel ch, MpaFrame f) throws IOException {
        writeFully(ch, ByteBuffer.wrap(f.toBytes()));
    }

    /** Writes {@code b} completely (blocking channel). */
    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
