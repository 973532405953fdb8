package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.spi.IwCmProvider;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records the siw CM's upcalls (what core's iw_cm would receive) for a test to wait on, bounded. */
public final class Upcalls implements IwCmProvider.Upcalls {
    private final LinkedBlockingQueue<Up> queue = new LinkedBlockingQueue<>();

    /**
     * One upcall.
     *
     * @param kind connectRequest, connectReply, established, disconnect or close
     * @param conn the connection
     * @param status the status (connectReply, close)
     * @param ird the peer's IRD (connectRequest, connectReply)
     * @param ord the peer's ORD (connectRequest, connectReply)
     * @param privateData the private data (connectRequest, connectReply)
     */
    public record Up(String kind, IwCmProvider.Connection conn, int status, int ird, int ord, byte[] privateData) {
    }

    @Override
    public void connectRequest(IwCmProvider.Connection conn, int ird, int ord, byte[] privateData) {
        queue.add(new Up("connectRequest", conn, 0, ird, ord, privateData));
    }

    @Override
    public void connectReply(IwCmProvider.Connection conn, int status, int ird, int ord, byte[] privateData) {
        queue.add(new Up("connectReply", conn, status, ird, ord, privateData));
    }

    @Override
    public void established(IwCmProvider.Connection conn) {
        queue.add(new Up("established", conn, 0, 0, 0, null));
    }

    @Override
    public void disconnect(IwCmProvider.Connection conn) {
        queue.add(new Up("disconnect", conn, 0, 0, 0, null));
    }

    @Override
    public void close(IwCmProvider.Connection conn, int status) {
        queue.add(new Up("close", conn, status, 0, 0, null));
    }

    /** The next upcall within {@code millis}; it must be of {@code kind}. */
    public Up next(String kind, long millis) {
        Up u;
        try {
            u = queue.poll(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        assertThat(u).as("upcall " + kind + " within " + millis + " ms").isNotNull();
        assertThat(u.kind()).as("upcall " + u).isEqualTo(kind);
        return u;
    }

    /** The next upcall within {@link RawPeer#TIMEOUT_MS}; it must be of {@code kind}. */
    public Up next(String kind) {
        return next(kind, RawPeer.TIMEOUT_MS);
    }

    /** Asserts that no upcall arrives for {@code millis}. */
    public void none(long millis) {
        try {
            Up u = queue.poll(millis, TimeUnit.MILLISECONDS);
            assertThat(u).as("no upcall").isNull();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
