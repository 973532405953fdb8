package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.IwConnParam;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaResult;
import io.jrdma.spi.IwCmProvider;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;

/** Sets up connections between jrdma (a {@link Testbed}) and a {@link RawPeer}, in either direction. */
public final class Links {
    private Links() {
    }

    /**
     * jrdma as responder: it listens, the peer connects and sends {@code request}; the connect request
     * upcall arrives and jrdma accepts with {@code param}; the peer reads the reply.
     *
     * @param peer the connected peer
     * @param qp jrdma's QP
     * @param up jrdma's upcalls
     * @param conn jrdma's connection
     * @param request the connect request upcall
     * @param replyBytes the reply as it came off the wire
     */
    public record Accepted(RawPeer peer, QpImpl qp, Upcalls up, IwCmProvider.Connection conn, Upcalls.Up request,
            byte[] replyBytes) {
        /** The reply, decoded. */
        public MpaReply reply() {
            return (MpaReply) decode(replyBytes);
        }
    }

    /** jrdma accepts {@code request} from a raw initiator (see {@link Accepted}). */
    public static Accepted accept(Testbed tb, SiwConfig config, MpaRequest request, IwConnParam param) {
        return accept(tb, config, request.toBytes(), param);
    }

    /** jrdma accepts the request {@code requestBytes} from a raw initiator (see {@link Accepted}). */
    public static Accepted accept(Testbed tb, SiwConfig config, byte[] requestBytes, IwConnParam param) {
        return accept(tb, config, requestBytes, param, 0);
    }

    /**
     * jrdma accepts {@code request} from a raw initiator whose socket has a receive buffer of
     * {@code peerReceiveBuffer} bytes (0: the system default).
     */
    public static Accepted accept(Testbed tb, SiwConfig config, MpaRequest request, IwConnParam param,
            int peerReceiveBuffer) {
        return accept(tb, config, request.toBytes(), param, peerReceiveBuffer);
    }

    private static Accepted accept(Testbed tb, SiwConfig config, byte[] requestBytes, IwConnParam param,
            int peerReceiveBuffer) {
        SiwCm cm = tb.cm(config);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        RawPeer peer = tb.closeLater(peerReceiveBuffer > 0 ? RawPeer.connect(l.localAddress(), peerReceiveBuffer)
                : RawPeer.connect(l.localAddress()));
        peer.write(requestBytes);
        Upcalls.Up req = up.next("connectRequest");
        QpImpl qp = tb.qp();
        req.conn().setUpcalls(up);
        req.conn().accept(qp, param);
        byte[] reply = peer.readMpaBytes();
        return new Accepted(peer, qp, up, req.conn(), req, reply);
    }

    /**
     * jrdma as initiator: it connects to the peer's socket and sends its request, which the peer reads.
     *
     * @param peer the accepted peer
     * @param server the peer's listening socket
     * @param qp jrdma's QP
     * @param up jrdma's upcalls
     * @param conn jrdma's connection
     * @param requestBytes the request as it came off the wire
     */
    public record Connecting(RawPeer peer, ServerSocket server, QpImpl qp, Upcalls up, IwCmProvider.Connection conn,
            byte[] requestBytes) implements AutoCloseable {
        /** The request, decoded. */
        public MpaRequest request() {
            return (MpaRequest) decode(requestBytes);
        }

        /** The peer answers with {@code reply}; returns the connect reply upcall. */
        public Upcalls.Up answer(MpaReply reply) {
            peer.sendMpa(reply);
            return up.next("connectReply");
        }

        @Override
        public void close() {
            peer.close();
            try {
                server.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** jrdma connects a new QP to a raw responder with {@code config} and {@code param}. */
    public static Connecting connect(Testbed tb, SiwConfig config, IwConnParam param) {
        ServerSocket server = RawPeer.listen();
        SiwCm cm = tb.cm(config);
        Upcalls up = new Upcalls();
        QpImpl qp = tb.qp();
        IwCmProvider.Connection c = tb.connect(cm, qp, server, param, up);
        RawPeer peer = tb.closeLater(RawPeer.accept(server));
        tb.closeLater(server);
        byte[] req = peer.readMpaBytes();
        return new Connecting(peer, server, qp, up, c, req);
    }

    /** Asserts an upcall's status. */
    public static void assertStatus(Upcalls.Up u, int status) {
        assertThat(u.status()).as("status of " + u.kind()).isEqualTo(status);
    }

    /** Decodes a whole MPA frame; fails unless it is valid. */
    public static MpaFrame decode(byte[] b) {
        MpaResult r = MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
        assertThat(r).as("MPA frame").isInstanceOf(MpaResult.Decoded.class);
        return ((MpaResult.Decoded) r).frame();
    }
}
