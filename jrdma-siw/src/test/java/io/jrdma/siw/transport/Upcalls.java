package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.spi.IwCmProvider;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Records the siw CM's upcalls (what core's iw_cm would receive) for a test to wait on, bounded. A test
 * shows that an upcall did not come by what came instead: the next upcall is a marker the test caused
 * after anything that would have been raised ({@link #nextRequest}), or one that must have been raised
 * after a moment the test chose ({@link #nextAfter}).
 */
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
     * @param at when it was raised ({@link System#nanoTime()})
     */
    public record Up(String kind, IwCmProvider.Connection conn, int status, int ird, int ord, byte[] privateData,
            long at) {
        @Override
        public String toString() {
            return kind + " status " + status + " ird " + ird + " ord " + ord + " private data "
                    + (privateData == null ? "none" : privateData.length + " bytes");
        }
    }

    @Override
    public void connectRequest(IwCmProvider.Connection conn, int ird, int ord, byte[] privateData) {
        queue.add(new Up("connectRequest", conn, 0, ird, ord, privateData, System.nanoTime()));
    }

    @Override
    public void connectReply(IwCmProvider.Connection conn, int status, int ird, int ord, byte[] privateData) {
        queue.add(new Up("connectReply", conn, status, ird, ord, privateData, System.nanoTime()));
    }

    @Override
    public void established(IwCmProvider.Connection conn) {
        queue.add(new Up("established", conn, 0, 0, 0, null, System.nanoTime()));
    }

    @Override
    public void disconnect(IwCmProvider.Connection conn) {
        queue.add(new Up("disconnect", conn, 0, 0, 0, null, System.nanoTime()));
    }

    @Override
    public void close(IwCmProvider.Connection conn, int status) {
        queue.add(new Up("close", conn, status, 0, 0, null, System.nanoTime()));
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

    /**
     * The next upcall within {@link RawPeer#TIMEOUT_MS}: it must be of {@code kind} and raised after
     * {@code since} (a {@link System#nanoTime()} the test took before it caused the upcall), so none of
     * that kind or any other came before.
     */
    public Up nextAfter(String kind, long since) {
        Up u = next(kind);
        assertThat(u.at() - since).as(kind + " raised after the test caused it, not before").isPositive();
        return u;
    }

    /**
     * The next upcall within {@link RawPeer#TIMEOUT_MS}: it must be the connect request that carries
     * {@code privateData}, a marker the test sent after whatever should have raised nothing, so nothing
     * was raised before it; nor was anything raised while it was waited for.
     */
    public Up nextRequest(byte[] privateData) {
        Up u = next("connectRequest");
        assertThat(u.privateData()).as("the marker request, not an upcall that came before it")
                .isEqualTo(privateData);
        assertThat(queue.peek()).as("no upcall beside the marker").isNull();
        return u;
    }

    /** Private data no request of a test carries but a marker ({@link #nextRequest}). */
    public static byte[] marker() {
        byte[] m = new byte[16];
        Arrays.fill(m, (byte) 0x4d);
        return m;
    }
}
