package io.jrdma.endpoint;

import io.jrdma.cm.CmId;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaAddrInfo;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.QpType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A listening endpoint: accepts the connection requests that reach its address and hands out the
 * connected {@link Endpoint}s. Like a TCP listen socket, it completes connections on its own, in
 * the background — for each request it builds an endpoint (QP, buffers, posted receives) and
 * accepts ({@code rdma_get_request}, {@code rdma_accept}) — and {@link #accept} takes the next one
 * that is established. At most {@code backlog} established endpoints wait to be taken; a request
 * beyond them is refused.
 *
 * <p><b>Closing.</b> {@link #close()} stops listening and closes the endpoints nobody took (and those
 * still connecting); endpoints already taken are the caller's and stay open, as accepted sockets
 * outlive their listen socket. Closing the {@link RdmaCm} closes the listener. Idempotent.
 *
 * <p><b>Threads.</b> Thread-safe: several threads may accept at once; each endpoint goes to one.
 */
public final class EndpointListener implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EndpointListener.class.getName());
    /** The default number of established endpoints waiting to be taken. */
    public static final int DEFAULT_BACKLOG = 16;

    private final RdmaCm cm;
    private final CmId listenId;
    private final EndpointOptions options;
    private final int backlog;
    private final Thread acceptor;
    private final ArrayDeque<Endpoint> ready = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Endpoint>> waiting = new ArrayDeque<>();
    private final List<Endpoint> connecting = new ArrayList<>();
    private boolean closed;

    private EndpointListener(RdmaCm cm, InetSocketAddress local, EndpointOptions options, int backlog) {
        this.cm = cm;
        this.options = options;
        this.backlog = backlog;
        this.listenId = cm.createEp(new RdmaAddrInfo(local, null, PortSpace.TCP, QpType.RC, true), null, null);
        try {
            listenId.listen(backlog);
        } catch (RuntimeException e) {
            listenId.destroy();
            throw e;
        }
        this.acceptor = Thread.ofVirtual().name("jrdma-listener-" + listenId.localAddress()).unstarted(this::run);
        cm.addDependent(this);
        acceptor.start();
    }

    /**
     * Listens on {@code local} with {@link EndpointOptions#defaults()}.
     *
     * @see #listen(RdmaCm, InetSocketAddress, EndpointOptions)
     */
    public static EndpointListener listen(RdmaCm cm, InetSocketAddress local) {
        return listen(cm, local, EndpointOptions.defaults());
    }

    /**
     * Listens on {@code local} ({@code rdma_create_ep} passive, {@code rdma_listen}); every endpoint it
     * accepts is built with {@code options}. Port 0 picks a free port ({@link #localAddress()}).
     *
     * @param cm the connection manager whose devices serve {@code local}
     * @param local the address to listen on (a device's address, or the wildcard)
     * @param options the accepted endpoints' buffers and parameters
     * @return the listener
     * @throws io.jrdma.verbs.RdmaException EADDRINUSE if another listener has the port, EADDRNOTAVAIL if no
     *     device of {@code cm} serves the address
     */
    public static EndpointListener listen(RdmaCm cm, InetSocketAddress local, EndpointOptions options) {
        return new EndpointListener(cm, local, options, DEFAULT_BACKLOG);
    }

    /** The address the listener is bound to (with the port chosen when 0 was asked for). */
    public InetSocketAddress localAddress() {
        return listenId.localAddress();
    }

    /**
     * The next established endpoint, waiting up to {@code timeout}; {@code null} if none came.
     *
     * @param timeout the bound on the wait
     * @return the endpoint (the caller closes it), or {@code null}
     * @throws IllegalStateException if the listener is closed
     */
    public Endpoint accept(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (true) {
                if (closed) {
                    throw new IllegalStateException(this + " is closed");
                }
                Endpoint ep = ready.poll();
                if (ep != null) {
                    return ep;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while accepting on " + this, e);
                }
            }
        }
    }

    /**
     * The next established endpoint, without blocking: the future completes with it, or exceptionally
     * when the listener closes first. Cancelling the future gives up the place in line.
     *
     * @return the future endpoint
     */
    public CompletableFuture<Endpoint> acceptAsync() {
        CompletableFuture<Endpoint> f = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                f.completeExceptionally(new IllegalStateException(this + " is closed"));
                return f;
            }
            Endpoint ep = ready.poll();
            if (ep != null) {
                f.complete(ep);
            } else {
                waiting.add(f);
            }
        }
        return f;
    }

    /** Takes requests until closed; each is accepted on a thread of its own. */
    private void run() {
        while (true) {
            CmId request;
            try {
                request = listenId.getRequest(null);
            } catch (InterruptedException | RuntimeException e) {
                synchronized (this) {
                    if (!closed) {
                        LOG.log(System.Logger.Level.WARNING, this + " stopped taking requests: " + e);
                    }
                }
                return;
            }
            if (request == null) {
                continue;
            }
            Thread.ofVirtual().name("jrdma-accept-" + request.peerAddress()).start(() -> establish(request));
        }
    }

    private void establish(CmId request) {
        Endpoint ep;
        synchronized (this) {
            if (closed || ready.size() + connecting.size() >= backlog) {
                reject(request);
                return;
            }
        }
        try {
            ep = Endpoint.forRequest(cm, request, options);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, this + ": no endpoint for " + request + ": " + e);
            reject(request);
            return;
        }
        synchronized (this) {
            connecting.add(ep);
        }
        try {
            ep.accept();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, this + ": accepting " + request + " failed: " + e);
            synchronized (this) {
                connecting.remove(ep);
            }
            ep.close();
            return;
        }
        synchronized (this) {
            connecting.remove(ep);
            if (!closed) {
                while (!waiting.isEmpty()) {
                    if (waiting.poll().complete(ep)) {
                        return;
                    }
                }
                ready.add(ep);
                notifyAll();
                return;
            }
        }
        ep.close();
    }

    private static void reject(CmId request) {
        try {
            request.reject(null);
        } catch (RuntimeException e) {
            // the requester went away
        }
        request.destroy();
    }

    /** Stops listening; closes the endpoints not taken yet. Idempotent. */
    @Override
    public void close() {
        List<Endpoint> untaken;
        List<CompletableFuture<Endpoint>> waiters;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            untaken = new ArrayList<>(ready);
            untaken.addAll(connecting);
            ready.clear();
            waiters = new ArrayList<>(waiting);
            waiting.clear();
            notifyAll();
        }
        cm.removeDependent(this);
        acceptor.interrupt();
        listenId.destroy();
        for (Endpoint ep : untaken) {
            ep.close();
        }
        for (CompletableFuture<Endpoint> f : waiters) {
            f.completeExceptionally(new IllegalStateException(this + " was closed"));
        }
    }

    @Override
    public String toString() {
        return "EndpointListener[" + listenId.localAddress() + "]";
    }
}
