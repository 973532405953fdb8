package io.jrdma.endpoint;

import io.jrdma.cm.CmId;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaAddrInfo;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One reliable connection, ready to use: a connected RC queue pair with its protection domain, its
 * completions and registered message buffers — receive buffers all posted, send buffers waiting —
 * made by {@link #connect} or by an {@link EndpointListener}. It sends and receives messages of up
 * to {@link EndpointOptions#messageSize()} bytes (SEND/RECV, copied into and out of its registered
 * buffers), and runs one-sided RDMA READ and WRITE on memory {@linkplain #register registered} with
 * it.
 *
 * <pre>{@code
 * try (Endpoint ep = Endpoint.connect(cm, new InetSocketAddress("10.0.0.2", 7471))) {
 *     ep.send("hello".getBytes());
 *     try (Message reply = ep.receive(Duration.ofSeconds(5))) {
 *         System.out.println(reply.text());
 *     }
 * }
 * }</pre>
 *
 * <p><b>Closing.</b> {@link #close()} disconnects, destroys the QP (outstanding work is flushed),
 * deregisters and frees its buffers and every region registered with it, and destroys its CM id;
 * it is idempotent and may be called from any thread, a handler's included. Closing what the
 * endpoint lives on — its {@link RdmaCm} or its {@link CompletionGroup} — closes it first. A
 * connection that ends from the other side (the peer disconnected, or the link failed) leaves the
 * endpoint open but ended: {@link #receive} returns what had arrived and then throws, and
 * {@link #send} throws, both with an {@link RdmaException} saying how it ended.
 *
 * <p><b>Threads.</b> Thread-safe: several threads may send and receive at once (each message goes to
 * one receiver). Blocking calls are bounded by {@link EndpointOptions#timeout()} or their argument,
 * and return early when the endpoint is closed.
 */
public final class Endpoint implements AutoCloseable {
    /** Send queue entries kept for one-sided operations beside the send buffers. */
    public static final int MAX_OPERATIONS = 16;
    private static final long KIND_SEND = 0L;
    private static final long KIND_RECV = 1L << 62;
    private static final long KIND_OP = 2L << 62;
    private static final long KIND_MASK = 3L << 62;

    private enum State { CONNECTING, OPEN, ENDED, CLOSED }

    private final RdmaCm cm;
    private final CmId id;
    private final EndpointOptions options;
    private final CompletionGroup group;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final int entries;
    private final Arena arena;
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    private final SendWr[] sendWrs;
    private final RecvWr[] recvWrs;
    private final Message[] messages;
    private final int[] freeSend;
    private final ArrayDeque<Message> inbox;
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final Map<Long, CompletableFuture<Void>> operations = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int freeCount;
    private long nextOperation;
    private volatile State state = State.CONNECTING;
    private RdmaException ended;

    /** Builds the endpoint's resources on {@code id} (resolved, or a connection request) and posts its receives. */
    private Endpoint(RdmaCm cm, CmId id, EndpointOptions options) {
        this.cm = cm;
        this.id = id;
        this.options = options;
        this.group = options.completions() != null ? options.completions() : CompletionGroup.own();
        Context ctx = id.verbs();
        int size = options.messageSize();
        int send = options.sendSlots();
        int recv = options.recvSlots();
        this.entries = send + MAX_OPERATIONS + recv;
        this.arena = Arena.ofShared();
        ProtectionDomain p = null;
        CompletionQueue q = null;
        QueuePair created = null;
        try {
            p = ctx.allocPd();
            q = group.join(this, cm, ctx, entries);
            created = id.createQp(p, new QpInitAttr(QpType.RC, q, q, null,
                    new QpCap(send + MAX_OPERATIONS, recv, 1, 1, 0), true));
        } catch (RuntimeException e) {
            if (q != null) {
                group.leave(this, q, -1, entries);
            } else if (group.isOwned()) {
                group.close();
            }
            if (p != null) {
                p.close();
            }
            arena.close();
            throw e;
        }
        this.pd = p;
        this.cq = q;
        this.qp = created;
        MemorySegment sendMem = arena.allocate((long) size * send, 64);
        MemorySegment recvMem = arena.allocate((long) size * recv, 64);
        MemoryRegion s = null;
        try {
            s = pd.registerMemory(sendMem, Access.LOCAL_WRITE);
            this.recvMr = pd.registerMemory(recvMem, Access.LOCAL_WRITE);
        } catch (RuntimeException e) {
            // The device's region limit, say: give back what was built, in reverse.
            if (s != null) {
                s.close();
            }
            quietly(id::destroyQp);
            group.leave(this, q, -1, entries);
            quietly(pd::close);
            arena.close();
            throw e;
        }
        this.sendMr = s;
        this.sendWrs = new SendWr[send];
        this.freeSend = new int[send];
        for (int i = 0; i < send; i++) {
            sendWrs[i] = new SendWr().wrId(KIND_SEND | i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .sg(sendMr, (long) i * size, size);
            freeSend[i] = send - 1 - i;
        }
        this.freeCount = send;
        this.recvWrs = new RecvWr[recv];
        this.messages = new Message[recv];
        this.inbox = new ArrayDeque<>(recv);
        for (int i = 0; i < recv; i++) {
            recvWrs[i] = new RecvWr().wrId(KIND_RECV | i).sg(recvMr, (long) i * size, size);
            messages[i] = new Message(this, i, recvMem.asSlice((long) i * size, size));
        }
        group.member(this, cq, qp.qpNum());
        for (RecvWr r : recvWrs) {
            if (qp.postRecv(r) != 1) {
                throw new IllegalStateException("the receive queue took fewer than " + recv + " receives");
            }
        }
        cm.addDependent(this);
    }

    /**
     * Connects to the listener at {@code remote} with {@link EndpointOptions#defaults()}.
     *
     * @see #connect(RdmaCm, InetSocketAddress, EndpointOptions)
     */
    public static Endpoint connect(RdmaCm cm, InetSocketAddress remote) {
        return connect(cm, remote, EndpointOptions.defaults());
    }

    /**
     * Connects to the listener at {@code remote} ({@code rdma_create_ep}, {@code rdma_connect}): resolves
     * the address and route, builds the endpoint's QP and buffers, posts its receives and connects;
     * returns once the connection is established.
     *
     * @param cm the connection manager whose devices may carry the connection
     * @param remote the listener's address
     * @param options the buffers, connection parameters and bound on the wait
     * @return the connected endpoint
     * @throws RdmaException with the connection manager's errno: ECONNREFUSED (nobody listens, or the
     *     listener rejected), ETIMEDOUT / EHOSTUNREACH (no answer within the timeout), EADDRNOTAVAIL (no
     *     device of {@code cm} reaches {@code remote})
     */
    public static Endpoint connect(RdmaCm cm, InetSocketAddress remote, EndpointOptions options) {
        return connect(cm, null, remote, options);
    }

    /**
     * Connects from the local address {@code local} ({@code rdma_resolve_addr} with a source address: the
     * device serving it carries the connection) to the listener at {@code remote}; otherwise as
     * {@link #connect(RdmaCm, InetSocketAddress, EndpointOptions)}.
     *
     * @param cm the connection manager
     * @param local the source address (port 0: any), or {@code null} to choose it by route
     * @param remote the listener's address
     * @param options the buffers, connection parameters and bound on the wait
     * @return the connected endpoint
     */
    public static Endpoint connect(RdmaCm cm, InetSocketAddress local, InetSocketAddress remote,
            EndpointOptions options) {
        if (remote == null) {
            throw new IllegalArgumentException("remote address must not be null");
        }
        CmId id = cm.createEp(new RdmaAddrInfo(local, remote, PortSpace.TCP, QpType.RC, false), null, null);
        Endpoint ep;
        try {
            ep = new Endpoint(cm, id, options);
        } catch (RuntimeException e) {
            id.destroy();
            throw e;
        }
        try {
            id.connect(options.connParam(), options.timeout());
            ep.opened();
            return ep;
        } catch (RuntimeException e) {
            ep.close();
            throw e;
        }
    }

    /**
     * Connects without blocking the caller: the connect of
     * {@link #connect(RdmaCm, InetSocketAddress, EndpointOptions)} on a virtual thread. The future
     * completes with the endpoint, or exceptionally with the {@link RdmaException} the connect threw.
     * Cancelling it does not stop the attempt, but an endpoint that connects after the future was
     * cancelled is closed at once.
     *
     * @param cm the connection manager
     * @param remote the listener's address
     * @param options the buffers, connection parameters and bound on the wait
     * @return the future endpoint
     */
    public static CompletableFuture<Endpoint> connectAsync(RdmaCm cm, InetSocketAddress remote,
            EndpointOptions options) {
        CompletableFuture<Endpoint> f = new CompletableFuture<>();
        Thread.ofVirtual().name("jrdma-connect-" + remote).start(() -> {
            try {
                Endpoint ep = connect(cm, remote, options);
                if (!f.complete(ep)) {
                    ep.close();
                }
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    /** An endpoint for a connection request, not yet accepted ({@link EndpointListener}). */
    static Endpoint forRequest(RdmaCm cm, CmId request, EndpointOptions options) {
        return new Endpoint(cm, request, options);
    }

    /** Accepts the request the endpoint was built for; returns once established. */
    void accept() {
        id.accept(options.connParam());
        opened();
    }

    private void opened() {
        lock.lock();
        try {
            if (state == State.CONNECTING) {
                state = State.OPEN;
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------ send

    /**
     * Sends {@code data} as one message: copies it into a free send buffer and posts a SEND. Returns
     * once posted; the buffer is free again when the SEND completes. Waits for a free buffer when every
     * one is in flight, up to {@link EndpointOptions#timeout()}.
     *
     * @param data at most {@link EndpointOptions#messageSize()} bytes
     * @throws IllegalArgumentException if {@code data} is larger than a message buffer
     * @throws RdmaException ETIMEDOUT if no buffer became free in time; ENOTCONN or the failure's errno if
     *     the connection ended
     * @throws IllegalStateException if the endpoint is closed
     */
    public void send(MemorySegment data) {
        long n = data.byteSize();
        if (n > options.messageSize()) {
            throw new IllegalArgumentException("a message of " + n + " bytes exceeds the endpoint's "
                    + options.messageSize() + "-byte buffers (EndpointOptions.withMessageSize)");
        }
        long deadline = System.nanoTime() + options.timeout().toNanos();
        lock.lock();
        try {
            while (true) {
                checkUsable();
                if (freeCount > 0) {
                    break;
                }
                if (!await(deadline)) {
                    throw new RdmaException(Errno.ETIMEDOUT, "no send buffer became free within "
                            + options.timeout() + ": all " + sendWrs.length + " SENDs are still outstanding");
                }
            }
            int slot = freeSend[--freeCount];
            MemorySegment.copy(data, 0, sendMr.segment(), (long) slot * options.messageSize(), n);
            SendWr wr = sendWrs[slot];
            wr.sg(sendMr, (long) slot * options.messageSize(), (int) n);
            if (qp.postSend(wr) != 1) {
                freeSend[freeCount++] = slot;
                throw new IllegalStateException("the send queue is full with " + freeCount + " buffers free");
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends {@code data} as one message ({@link #send(MemorySegment)}).
     *
     * @param data at most {@link EndpointOptions#messageSize()} bytes
     */
    public void send(byte[] data) {
        send(MemorySegment.ofArray(data));
    }

    // ------------------------------------------------------------------------------------------ receive

    /**
     * The next message, waiting up to {@code timeout}; {@code null} if none came. Close the message to
     * give its buffer back.
     *
     * @param timeout the bound on the wait
     * @return the message, or {@code null} on timeout
     * @throws RdmaException ENOTCONN or the failure's errno once the connection ended and every message
     *     that came before was taken
     * @throws IllegalStateException if the endpoint is closed, or its messages go to a handler
     */
    public Message receive(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            if (options.handler() != null) {
                throw new IllegalStateException("this endpoint's messages go to its handler");
            }
            while (true) {
                Message m = inbox.poll();
                if (m != null) {
                    return m;
                }
                checkUsable();
                if (!await(deadline)) {
                    return null;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next message if one is waiting, else {@code null}; never blocks (in a {@link CompletionGroup#polled()}
     * group it delivers the group's completions first).
     *
     * @return the message, or {@code null}
     */
    public Message poll() {
        if (!group.isThreaded() && state != State.CLOSED) {
            group.poll();
        }
        lock.lock();
        try {
            Message m = inbox.poll();
            if (m == null) {
                checkUsable();
            }
            return m;
        } finally {
            lock.unlock();
        }
    }

    /** Posts receive buffer {@code slot} again (a message was closed). */
    void repost(int slot) {
        lock.lock();
        try {
            if (state == State.OPEN || state == State.CONNECTING) {
                qp.postRecv(recvWrs[slot]);
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------ one-sided

    /**
     * Registers {@code memory} for one-sided operations ({@code ibv_reg_mr} on the endpoint's protection
     * domain): the peer reads and writes it with the region's {@link MemoryRegion#address()} and
     * {@link MemoryRegion#rkey()} (send them in a message), and {@link #read}/{@link #write} use it
     * locally. The region is deregistered when the endpoint closes, or before by closing it.
     *
     * @param memory native or {@code byte[]} heap memory of a shared, global or automatic arena
     * @param access {@link Access} flags, e.g. {@code Access.LOCAL_WRITE | Access.REMOTE_WRITE}
     * @return the region
     */
    public MemoryRegion register(MemorySegment memory, int access) {
        lock.lock();
        try {
            checkUsable();
            MemoryRegion mr = pd.registerMemory(memory, access);
            regions.add(mr);
            return mr;
        } finally {
            lock.unlock();
        }
    }

    /**
     * RDMA WRITE of {@code length} bytes at {@code offset} of {@code local} to the peer's
     * {@code remoteAddress} under {@code rkey}. The future completes when the WRITE does (with an
     * {@link RdmaException} naming the completion status if it failed).
     */
    public CompletableFuture<Void> write(MemoryRegion local, long offset, int length, long remoteAddress, int rkey) {
        return oneSided(WrOpcode.RDMA_WRITE, local, offset, length, remoteAddress, rkey);
    }

    /**
     * RDMA READ of {@code length} bytes from the peer's {@code remoteAddress} under {@code rkey} into
     * {@code local} at {@code offset} (registered with {@link Access#LOCAL_WRITE}). The future completes
     * when the data is in place.
     */
    public CompletableFuture<Void> read(MemoryRegion local, long offset, int length, long remoteAddress, int rkey) {
        return oneSided(WrOpcode.RDMA_READ, local, offset, length, remoteAddress, rkey);
    }

    private CompletableFuture<Void> oneSided(WrOpcode op, MemoryRegion local, long offset, int length,
            long remoteAddress, int rkey) {
        if (offset < 0 || length < 0 || offset + length > local.length()) {
            throw new IllegalArgumentException("[" + offset + ", +" + length + ") is outside the region of "
                    + local.length() + " bytes");
        }
        long deadline = System.nanoTime() + options.timeout().toNanos();
        CompletableFuture<Void> f = new CompletableFuture<>();
        lock.lock();
        try {
            while (true) {
                checkUsable();
                if (operations.size() < MAX_OPERATIONS) {
                    break;
                }
                if (!await(deadline)) {
                    throw new RdmaException(Errno.ETIMEDOUT, "all " + MAX_OPERATIONS
                            + " one-sided operations are still outstanding after " + options.timeout());
                }
            }
            long wrId = KIND_OP | nextOperation++ & ~KIND_MASK;
            operations.put(wrId, f);
            SendWr wr = new SendWr().wrId(wrId).opcode(op).flags(SendFlags.SIGNALED)
                    .sg(local, offset, length).rdma(remoteAddress, rkey);
            if (qp.postSend(wr) != 1) {
                operations.remove(wrId);
                throw new IllegalStateException("the send queue is full");
            }
        } finally {
            lock.unlock();
        }
        return f;
    }

    // ------------------------------------------------------------------------------------------ completions

    /** One completion of the endpoint's QP (the group's delivering thread). */
    void onCompletion(WorkCompletion wc) {
        long wrId = wc.wrId();
        int index = (int) (wrId & ~KIND_MASK);
        WcStatus status = wc.status();
        MessageHandler handler = options.handler();
        Message delivered = null;
        CompletableFuture<Void> op = null;
        RdmaException endedNow = null;
        lock.lock();
        try {
            long kind = wrId & KIND_MASK;
            if (kind == KIND_SEND) {
                freeSend[freeCount++] = index;
            } else if (kind == KIND_OP) {
                op = operations.remove(wrId);
            }
            if (status == WcStatus.SUCCESS) {
                if (kind == KIND_RECV) {
                    Message m = messages[index];
                    m.delivered(wc.byteLen());
                    if (handler != null) {
                        delivered = m;
                    } else {
                        inbox.add(m);
                    }
                }
            } else if (state != State.CLOSED && ended == null) {
                endedNow = endedBy(status, kind);
                ended = endedNow;
                state = State.ENDED;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (op != null) {
            if (status == WcStatus.SUCCESS) {
                op.complete(null);
            } else {
                op.completeExceptionally(new RdmaException(Errno.EIO, "the operation completed with " + status));
            }
        }
        if (delivered != null) {
            try {
                handler.onMessage(this, delivered);
            } catch (RuntimeException e) {
                System.getLogger(Endpoint.class.getName()).log(System.Logger.Level.WARNING, this
                        + ": the message handler threw", e);
            } finally {
                delivered.close();
            }
        }
        if (endedNow != null && handler != null) {
            handler.onClosed(this, endedNow);
        }
    }

    /** The completions can no longer be delivered (the device was closed under the endpoint). */
    void lost(RuntimeException why) {
        RdmaException e;
        lock.lock();
        try {
            if (state == State.CLOSED || ended != null) {
                return;
            }
            e = new RdmaException(Errno.ENODEV, "the connection to " + remoteAddressOrNull() + " ended: its device "
                    + "was closed (" + why.getMessage() + ")", why);
            ended = e;
            state = State.ENDED;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (options.handler() != null) {
            options.handler().onClosed(this, e);
        }
    }

    private RdmaException endedBy(WcStatus status, long kind) {
        if (status == WcStatus.WR_FLUSH_ERR) {
            return new RdmaException(Errno.ENOTCONN, "the connection to " + remoteAddressOrNull()
                    + " ended: the peer disconnected or the QP failed (its work was flushed)");
        }
        String what = kind == KIND_SEND ? "a SEND" : kind == KIND_RECV ? "a receive" : "an RDMA operation";
        return new RdmaException(Errno.EIO, "the connection to " + remoteAddressOrNull() + " failed: " + what
                + " completed with " + status);
    }

    private InetSocketAddress remoteAddressOrNull() {
        try {
            return id.peerAddress();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Throws if the endpoint can take no more work (lock held). */
    private void checkUsable() {
        if (state == State.CLOSED) {
            throw new IllegalStateException(this + " is closed");
        }
        if (ended != null) {
            throw new RdmaException(ended.errno(), ended.getMessage(), ended);
        }
    }

    /** Waits on {@link #changed} until {@code deadline}; false once it passed (lock held). */
    private boolean await(long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        if (group.isThreaded()) {
            try {
                changed.awaitNanos(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaException(Errno.EINTR, "interrupted while waiting on " + this, e);
            }
        } else {
            // A polled group delivers only when someone polls: the waiting thread does.
            lock.unlock();
            try {
                if (group.poll() == 0) {
                    Thread.onSpinWait();
                }
            } finally {
                lock.lock();
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------ queries

    /** The device carrying the connection. */
    public Device device() {
        return id.device();
    }

    /** The local address of the connection. */
    public InetSocketAddress localAddress() {
        return id.localAddress();
    }

    /** The peer's address. */
    public InetSocketAddress remoteAddress() {
        return id.peerAddress();
    }

    /** The options the endpoint was built with. */
    public EndpointOptions options() {
        return options;
    }

    /** Whether the endpoint is connected and not closed (a connection that ended is not open). */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /** The number of SENDs posted and not yet completed. */
    public int sendsOutstanding() {
        lock.lock();
        try {
            return sendWrs.length - freeCount;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------ close

    /**
     * Disconnects and frees everything the endpoint holds, once the SENDs already posted have completed
     * (waiting at most {@link EndpointOptions#timeout()}): the QP (work still outstanding is flushed and
     * its futures fail), the buffers and the regions registered with it, the protection domain, the
     * completions if they are its own, and the CM id. Idempotent; any thread.
     */
    @Override
    public void close() {
        if (state == State.OPEN && !group.isDeliveringThread()) {
            // As a socket's close delivers what was written: the SENDs posted go out before the
            // disconnect flushes them (bounded; never on the thread that would deliver their completions).
            awaitSendsDone(options.timeout());
        }
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            inbox.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        cm.removeDependent(this);
        quietly(id::disconnect);
        quietly(id::destroyQp);
        group.leave(this, cq, qp.qpNum(), entries);
        List<CompletableFuture<Void>> pending;
        lock.lock();
        try {
            pending = new ArrayList<>(operations.values());
            operations.clear();
            for (MemoryRegion mr : regions) {
                quietly(mr::close);
            }
            regions.clear();
        } finally {
            lock.unlock();
        }
        for (CompletableFuture<Void> f : pending) {
            f.completeExceptionally(new IllegalStateException(this + " was closed"));
        }
        quietly(sendMr::close);
        quietly(recvMr::close);
        quietly(pd::close);
        quietly(id::destroy);
        arena.close();
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // closing under a parent that is closing too (the context went first): nothing is left to free
        }
    }

    /** Waits up to {@code timeout} for every SEND to complete; true if none is outstanding. */
    boolean awaitSendsDone(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (freeCount < sendWrs.length && state == State.OPEN) {
                if (!await(deadline)) {
                    return false;
                }
            }
            return freeCount == sendWrs.length;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        InetSocketAddress remote = state == State.CLOSED ? null : remoteAddressOrNull();
        return "Endpoint[" + (remote == null ? "" : "to " + remote + ", ") + state.name().toLowerCase() + "]";
    }
}
