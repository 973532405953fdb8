package io.jrdma.tools.baseline;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking TCP connection that carries {@link ControlMessage}s, with a read timeout on every
 * wait so a silent peer ends the run instead of hanging it.
 */
final class ControlChannel implements Closeable {

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final SocketChannel channel;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    ControlChannel(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(true);
        this.socket = channel.socket();
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /**
     * Sends a message.
     *
     * @param m the message
     * @throws IOException if sending fails
     */
    void send(ControlMessage m) throws IOException {
        m.write(out);
        out.flush();
    }

    /**
     * Waits for the next message.
     *
     * @param timeout how long to wait; zero waits for ever
     * @return the message
     * @throws IOException on a timeout, a closed connection or a malformed message
     */
    ControlMessage receive(Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        return ControlMessage.read(in);
    }

    /**
     * Waits for a message of one type; a {@link ControlMessage.Failed} from the peer becomes an
     * exception carrying its reason.
     *
     * @param type the expected type
     * @param timeout how long to wait
     * @param <T> the type
     * @return the message
     * @throws PeerFailedException if the peer reported a failure
     * @throws ProtocolException if another message arrives
     * @throws IOException on a timeout or closed connection
     */
    <T extends ControlMessage> T expect(Class<T> type, Duration timeout) throws IOException {
        ControlMessage m = receive(timeout);
        if (m instanceof ControlMessage.Failed f) {
            throw new PeerFailedException(f.reason());
        }
        if (!type.isInstance(m)) {
            throw new ProtocolException("expected " + type.getSimpleName() + ", got " + m);
        }
        return type.cast(m);
    }

    /**
     * Waits until a message has started to arrive, without consuming it.
     *
     * @param timeoutNanos how long to wait
     * @return true if bytes are waiting
     * @throws IOException if the connection fails
     */
    boolean awaitReadable(long timeoutNanos) throws IOException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (in.available() == 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return true;
    }

    /**
     * The local address of the connection.
     *
     * @return the address
     * @throws IOException if the channel is closed
     */
    InetSocketAddress localAddress() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    /**
     * The remote address of the connection.
     *
     * @return the address
     * @throws IOException if the channel is closed
     */
    InetSocketAddress remoteAddress() throws IOException {
        return (InetSocketAddress) channel.getRemoteAddress();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    /** The peer sent {@link ControlMessage.Failed}. */
    static final class PeerFailedException extends IOException {
        private static final long serialVersionUID = 1L;

        PeerFailedException(String reason) {
            super(reason);
        }
    }
}
