package io.jrdma.bench;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The floor under an iWARP connection setup: what the TCP exchange beneath one costs in Java on this
 * machine, measured in the bench's own run. A client thread connects to 127.0.0.1, sends an
 * MPA-request-sized message ({@value #MESSAGE} bytes: the 20-byte MPA header and the 8-byte v2 block),
 * reads the same-sized reply and then the end of the stream, and closes; the server thread accepts,
 * reads the request, replies, shuts its output down, reads to the end and closes: four segments
 * with data or a FIN, as in a siw setup and teardown (request, reply, a FIN each way). Both are
 * blocking platform threads with TCP_NODELAY and direct buffers, so each step is one system call and
 * one wake-up of the other side:
 * the least any two-sided setup over TCP pays here (a siw setup adds the QP, the CM and its events).
 */
final class TcpSetupFloor {
    /** The bytes each way: an MPA v2 request or reply without private data. */
    static final int MESSAGE = 28;

    private TcpSetupFloor() {
    }

    /** Cycles for {@code warmup}, then for {@code duration}; returns the measured rate. */
    static ConnectionCycler.Rate measure(Duration warmup, Duration duration) {
        AtomicReference<Throwable> serverFailure = new AtomicReference<>();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0), 1024);
            InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
            Thread t = Thread.ofPlatform().daemon().name("bench-tcp-setup-server").start(() -> serve(server,
                    serverFailure));
            try {
                ByteBuffer b = ByteBuffer.allocateDirect(MESSAGE);
                run(address, b, System.nanoTime() + warmup.toNanos(), serverFailure);
                long t0 = System.nanoTime();
                long n = run(address, b, t0 + duration.toNanos(), serverFailure);
                return new ConnectionCycler.Rate(n, System.nanoTime() - t0);
            } finally {
                server.close();
                t.interrupt();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("TCP setup floor failed", e);
        }
    }

    private static long run(InetSocketAddress address, ByteBuffer b, long until, AtomicReference<Throwable> failure)
            throws IOException {
        long n = 0;
        while (System.nanoTime() < until) {
            if (failure.get() != null) {
                throw new IllegalStateException("TCP setup floor server failed", failure.get());
            }
            try (SocketChannel c = SocketChannel.open()) {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.connect(address);
                b.clear();
                while (b.hasRemaining()) {
                    c.write(b);
                }
                readFully(c, b);
                b.clear();
                if (c.read(b) >= 0) {
                    throw new IOException("TCP setup floor: the server sent more than its reply");
                }
            }
            n++;
        }
        return n;
    }

    private static void serve(ServerSocketChannel server, AtomicReference<Throwable> failure) {
        ByteBuffer b = ByteBuffer.allocateDirect(MESSAGE);
        try {
            while (true) {
                try (SocketChannel c = server.accept()) {
                    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    readFully(c, b);
                    b.flip();
                    while (b.hasRemaining()) {
                        c.write(b);
                    }
                    // The server closes first: the TIME_WAIT of each connection stays on the server's
                    // port, not on a client port the CM may pick for siw's connections next.
                    c.shutdownOutput();
                    b.clear();
                    if (c.read(b) >= 0) {
                        throw new IOException("TCP setup floor: the client sent more than its request");
                    }
                }
            }
        } catch (ClosedChannelException e) {
            // the run is over
        } catch (IOException | RuntimeException e) {
            failure.set(e);
        }
    }

    private static void readFully(SocketChannel c, ByteBuffer b) throws IOException {
        b.clear();
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new EOFException("TCP setup floor: the peer closed early");
            }
        }
    }
}
