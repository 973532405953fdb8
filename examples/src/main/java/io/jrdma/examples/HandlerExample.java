package io.jrdma.examples;

import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The kernel style of the connection manager: no event channel, an event handler per id
 * ({@code rdma_create_id(net, handler, ctx, ps, qp_type)}), as Linux kernel users of rdma_cm (NFS over
 * RDMA, iSER, krping) write it. The handler drives the connection from event to event — ADDR_RESOLVED
 * resolves the route, ROUTE_RESOLVED creates the QP and connects ({@code rdma_connect_locked}, the call
 * for inside a handler), CONNECT_REQUEST creates the QP on the new id and accepts, DISCONNECTED
 * releases the QP and returns {@code true}, which destroys the id once the handler returns (the
 * kernel's non-zero return). Completions are handled the way a kernel ULP's CQ callback handles them:
 * a completion channel wakes a thread that polls.
 *
 * <p>The client sends {@code count} 8-byte counters; the server echoes each one back; the client checks
 * them and disconnects. Events of one connection manager run one at a time on its executor.
 */
public final class HandlerExample {
    /** The example's default port. */
    public static final int PORT = 7473;
    private static final int DEPTH = 16;

    private HandlerExample() {
    }

    /** The verbs resources of one side, created from a handler. */
    private static final class Side {
        final CmId id;
        final Arena arena = Arena.ofShared();
        final ProtectionDomain pd;
        final CompletionChannel channel;
        final CompletionQueue cq;
        final MemorySegment buf;
        final MemoryRegion mr;
        /** The server's completion thread, if any. */
        volatile Thread poller;

        Side(CmId id) {
            this.id = id;
            this.pd = id.verbs().allocPd();
            this.channel = id.verbs().createCompletionChannel();
            this.cq = id.verbs().createCq(3 * DEPTH, channel, 0);
            // Room for twice the receives kept posted: jrdma reports a receive completion an instant
            // before its queue slot is free again, so a repost right after the poll needs the headroom.
            id.createQp(pd, new QpInitAttr(QpType.RC, cq, cq, null, QpCap.of(DEPTH, 2 * DEPTH), false));
            this.buf = arena.allocate(8L * DEPTH * 2, 8);
            this.mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            for (int i = 0; i < DEPTH; i++) {
                postRecv(i);
            }
        }

        void postRecv(int slot) {
            if (id.qp().postRecv(new RecvWr().wrId(slot).sg(mr, 8L * slot, 8)) != 1) {
                throw new IllegalStateException("the receive queue is full");
            }
        }

        void send(int slot, long value) {
            long off = 8L * (DEPTH + slot);
            buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off, value);
            if (id.qp().postSend(new SendWr().wrId(DEPTH + slot).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sg(mr, off, 8)) != 1) {
                throw new IllegalStateException("the send queue is full");
            }
        }

        /** Waits for the next completion on the channel, as a CQ callback would be called. */
        WorkCompletion next(WorkCompletion wc) throws InterruptedException {
            WorkCompletion[] one = {wc};
            while (true) {
                // Poll; if empty, arm the CQ and poll once more (a completion may have slipped in
                // before the arming), then sleep on the channel.
                boolean got = cq.poll(one) == 1;
                if (!got) {
                    cq.requestNotify(false);
                    got = cq.poll(one) == 1;
                }
                if (got) {
                    if (wc.status() != WcStatus.SUCCESS) {
                        throw new IllegalStateException("completion " + wc.wrId() + ": " + wc.status());
                    }
                    return wc;
                }
                CompletionQueue woke = channel.getEvent(Completions.TIMEOUT);
                if (woke == null) {
                    throw new IllegalStateException("no completion within " + Completions.TIMEOUT);
                }
                channel.ackEvents(woke, 1);
            }
        }

        /**
         * Releases what the handler created; called from the DISCONNECTED handler before it returns true.
         * Destroying the QP flushes its receives, which ends the completion thread; it is waited for
         * before the CQ and the memory go.
         */
        void release() {
            id.destroyQp();
            Thread t = poller;
            if (t != null) {
                try {
                    t.join(Completions.TIMEOUT.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            mr.close();
            cq.close();
            channel.close();
            pd.close();
            arena.close();
        }
    }

    /**
     * Starts a server on {@code at} that echoes every message of every client.
     *
     * @param cm the connection manager
     * @param at the address to listen on
     * @return the listening id (destroy it to stop)
     */
    public static CmId serve(RdmaCm cm, InetSocketAddress at) {
        CmEventHandler handler = (id, e) -> {
            switch (e.type()) {
                case CONNECT_REQUEST -> {
                    // e.id() is the new id of the connection; this handler is its handler from now on.
                    Side s = new Side(e.id());
                    e.id().context(s);
                    e.id().accept(ConnParam.defaults());
                    s.poller = Thread.ofVirtual().name("echo-" + e.id().localPort()).start(() -> echo(s));
                    return false;
                }
                case DISCONNECTED -> {
                    id.disconnect();
                    ((Side) id.context()).release();
                    return true; // destroy the connection's id
                }
                default -> {
                    return false;
                }
            }
        };
        CmId listen = cm.createId(handler, null, PortSpace.TCP, QpType.RC);
        listen.bind(at);
        listen.listen(8);
        return listen;
    }

    /** The server's completion loop: every received counter goes back. */
    private static void echo(Side s) {
        WorkCompletion wc = new WorkCompletion();
        try {
            while (true) {
                s.next(wc);
                if (wc.opcode() == WcOpcode.RECV) {
                    int slot = (int) wc.wrId();
                    long value = s.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * slot);
                    s.postRecv(slot);
                    s.send(slot, value);
                }
            }
        } catch (IllegalStateException | InterruptedException e) {
            // the connection ended: flushed completions or a closed CQ end the loop
        }
    }

    /**
     * Connects to {@code server} with a handler, sends {@code count} counters and checks the echoes.
     *
     * @param cm the connection manager
     * @param server the server's address
     * @param count how many messages
     * @return how many echoes matched
     * @throws Exception if the exchange fails or times out
     */
    public static int run(RdmaCm cm, InetSocketAddress server, int count) throws Exception {
        CompletableFuture<Side> established = new CompletableFuture<>();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        CmEventHandler handler = (id, e) -> {
            switch (e.type()) {
                case ADDR_RESOLVED -> id.resolveRoute(Duration.ofSeconds(2));
                case ROUTE_RESOLVED -> {
                    id.context(new Side(id));
                    id.connectLocked(ConnParam.defaults());
                }
                case ESTABLISHED -> established.complete((Side) id.context());
                case DISCONNECTED -> {
                    ((Side) id.context()).release();
                    closed.complete(null);
                    return true; // destroy the id
                }
                case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED, CONNECT_ERROR -> {
                    established.completeExceptionally(new IllegalStateException(e.toString()));
                    return true;
                }
                default -> {
                }
            }
            return false;
        };
        CmId id = cm.createId(handler, null, PortSpace.TCP, QpType.RC);
        id.resolveAddr(null, server, Duration.ofSeconds(2));
        Side s = established.get(Completions.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        int matched = 0;
        WorkCompletion wc = new WorkCompletion();
        int sent = 0;
        int inFlight = 0;
        while (matched < count) {
            while (sent < count && inFlight < DEPTH) {
                s.send(sent % DEPTH, 1000L + sent);
                sent++;
                inFlight++;
            }
            s.next(wc);
            if (wc.opcode() == WcOpcode.RECV) {
                int slot = (int) wc.wrId();
                long value = s.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * slot);
                if (value == 1000L + matched) {
                    matched++;
                }
                inFlight--;
                s.postRecv(slot);
            }
        }
        id.disconnect();
        closed.get(Completions.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        return matched;
    }

    /**
     * Runs one side: {@code [-d device] [-p port] server [address]} or
     * {@code [-d device] [-p port] [-C count] client address}.
     *
     * @param args the command line
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        String device = null;
        int port = PORT;
        int count = 1000;
        int i = 0;
        for (; i + 1 < args.length && args[i].startsWith("-"); i += 2) {
            switch (args[i]) {
                case "-d" -> device = args[i + 1];
                case "-C" -> count = Integer.parseInt(args[i + 1]);
                default -> port = Integer.parseInt(args[i + 1]);
            }
        }
        if (i >= args.length) {
            System.out.println("usage: HandlerExample [-d device] [-p port] server [address] | [-C n] client address");
            System.exit(1);
        }
        boolean serverSide = args[i].equals("server");
        String host = i + 1 < args.length ? args[i + 1] : serverSide ? "0.0.0.0" : "127.0.0.1";
        try (RdmaCm cm = device == null ? RdmaCm.open() : RdmaCm.open(device)) {
            InetSocketAddress at = new InetSocketAddress(host, port);
            if (serverSide) {
                serve(cm, at);
                System.out.println("echoing on " + at + "; stop with Ctrl-C");
                Thread.sleep(Long.MAX_VALUE);
            } else {
                int n = run(cm, at, count);
                System.out.println(n + " of " + count + " echoes matched");
                System.exit(n == count ? 0 : 1);
            }
        }
    }
}
