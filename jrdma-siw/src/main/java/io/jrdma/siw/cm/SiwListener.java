package io.jrdma.siw.cm;

import io.jrdma.siw.net.SiwEngine;
import io.jrdma.spi.IwCmProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A listening TCP socket on an engine's selector (siw's listening {@code siw_cep}, whose socket
 * callback queues the accept on the CM work queue) and the connections still in their MPA exchange.
 */
final class SiwListener implements IwCmProvider.Listener, SiwEngine.Schedulable {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");
    /** How long closing a listener waits for its engine to release the socket. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);
    /** Most connections a listener accepts per readiness event, so that other channels get their turn. */
    private static final int ACCEPT_BATCH = 64;

    private final SiwCm cm;
    private final CmContext context;
    final ServerSocketChannel server;
    /** The engine that accepts and reads the MPA requests. */
    final SiwEngine engine;
    final IwCmProvider.Upcalls upcalls;
    /** Kept for connections that still belong to the listener (none once reported to iw_cm). */
    final Set<SiwConnection> pending = ConcurrentHashMap.newKeySet();
    /** Accepted connections whose MPA request is still being read (engine thread only). */
    final Set<Responder> handshaking = new HashSet<>();
    private final InetSocketAddress bound;
    private SelectionKey key;

    SiwListener(SiwCm cm, ServerSocketChannel server, SiwEngine engine, IwCmProvider.Upcalls upcalls) {
        this.cm = cm;
        this.context = cm.context();
        this.server = server;
        this.engine = engine;
        this.upcalls = upcalls;
        InetSocketAddress a;
        try {
            a = (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            a = null;
        }
        this.bound = a;
    }

    /** Engine thread: accept when a connection is queued. */
    void register() {
        try {
            key = server.register(engine.selector(), SelectionKey.OP_ACCEPT, this);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return bound;
    }

    /**
     * Like iw_destroy_listen, returns once the port no longer listens: the JDK releases the socket of
     * a channel registered with a selector only at that selector's next select, until then the
     * kernel still queues connections, which the late close resets (ECONNRESET, not ECONNREFUSED).
     * Requests still being read are reset.
     */
    @Override
    public void close() {
        CompletableFuture<Void> released = new CompletableFuture<>();
        engine.runOrQueue(() -> {
            if (key != null) {
                key.cancel();
            }
            try {
                server.close();
            } catch (IOException e) {
                // closing anyway
            }
            for (Responder r : handshaking.toArray(new Responder[0])) {
                r.abort();
            }
            engine.afterNextSelect(() -> released.complete(null));
        });
        for (SiwConnection c : pending) {
            SiwCm.closeQuietly(c.channel, true);
        }
        pending.clear();
        if (engine.onEngine()) {
            return; // the engine's next select releases the socket
        }
        try {
            released.get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "[" + context.deviceName() + "] listener on " + bound
                    + " still closing after " + CLOSE_WAIT);
        }
    }

    @Override
    public int onDoorbell() {
        return 0;
    }

    /** siw_cm_llp_data_ready on a listening socket, then siw_accept_newconn. */
    @Override
    public int onReadable() {
        int n = 0;
        while (n < ACCEPT_BATCH && server.isOpen()) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return n;
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "[" + context.deviceName() + "] accept failed: " + e);
                return n + 1;
            }
            if (ch == null) {
                break;
            }
            n++;
            new Responder(cm, this, ch).start();
        }
        return n;
    }

    @Override
    public int onWritable() {
        return 0;
    }
}
