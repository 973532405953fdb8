package io.jrdma.rxe.net;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.engine.Agent;
import io.jrdma.internal.engine.AgentRunner;
import io.jrdma.internal.engine.Doorbell;
import io.jrdma.internal.engine.DoorbellQueue;
import io.jrdma.internal.engine.EngineHolder;
import io.jrdma.internal.engine.IdleStrategy;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.TimerQueue;
import io.jrdma.internal.verbs.CqImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.CounterSet;
import io.jrdma.verbs.Counter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The rxe data-path agent (Linux {@code rxe_recv.c} + {@code rxe_net.c} + the tasklets that run
 * {@code rxe_requester}, {@code rxe_responder} and {@code rxe_completer}): it owns every device's
 * {@link RxePort} and its sockets, receives datagrams, checks their ICRC, demultiplexes them by
 * destination QPN to the port's QPs (QP1 to the device's CM), runs the QPs whose doorbell rang, fires
 * their retransmit and RNR timers, and sends what they build. Exactly one thread runs a duty cycle at a time — the
 * engine's own thread or, in application-driven mode, a thread that posts to or polls a CQ of one of
 * its QPs — so the protocol code takes no locks, and the buffers, flyweights and timers below belong to
 * whoever holds the engine; the steady state allocates nothing (one receive and one transmit buffer, a
 * small {@link PacketPool}, flyweights).
 *
 * <p>Application-driven mode (the default; {@code jrdma.rxe.appDriven=false} turns it off): the thread
 * that posts a work request runs the cycle itself when it can take the engine, so the packet leaves
 * before {@code postSend} returns, and a thread that polls an empty CQ of one of the engine's QPs runs a
 * cycle (reads the sockets, completes), so a ping-pong pays no thread wake-up. A thread that cannot take
 * the engine leaves its doorbell to the holder, which looks again before it lets go. Meanwhile the
 * engine thread parks briefly (timers still fire when nobody polls) and waits in
 * {@link Selector#select(long)} once nobody drove the engine for {@link #APP_IDLE_NANOS}, or at once when
 * a poller armed its CQ to wait for the event ({@link #handBack()}). With engine threads
 * ({@code jrdma.rxe.appDriven=false}) the engine thread does all I/O: it parks in {@code select} so that
 * a datagram, a doorbell or the next timer wakes it.
 * Control operations that must run on the engine (adding a port, resetting or destroying a QP) arrive
 * as commands, or run on the calling thread when it can take the engine (application-driven mode).
 */
public final class RxeEngine implements Agent, CqImpl.ProgressHook {
    private static final System.Logger LOG = System.getLogger("io.jrdma.rxe");
    /** Largest UDP payload the engine receives (IPv4 maximum); anything rxe sends is far smaller. */
    public static final int MAX_DATAGRAM = 65_536;
    /** Datagrams read per port per duty cycle before other work gets its turn. */
    static final int RX_BATCH = 64;
    /** QPs served per duty cycle. */
    static final int QP_BATCH = 256;
    /**
     * Packets the QPs of one duty cycle may send before the ports are read again: as many as a port reads
     * per cycle. A QP that still has work rings itself again and would otherwise be served up to
     * {@link #QP_BATCH} times in one cycle: an RDMA READ reply of 4 MiB (4,096 packets of a 1,024-byte MTU)
     * went out whole before the engine read a datagram, and when the requester was on this engine too (two
     * devices in one JVM) its socket's receive buffer overflowed on every reply and every retry: read-bw
     * at 4 MiB measured 0 MB/s.
     */
    static final int TX_PER_CYCLE = RX_BATCH;
    /** Buffers for packets that must wait (responder queues, reordering). */
    static final int POOL_BUFFERS = 512;
    /** Size of one pooled buffer: a 4096-byte MTU packet with every header, rounded up. */
    static final int POOL_BUFFER_SIZE = 4352;
    /** {@code IB_MULTICAST_QPN}: the destination QPN of datagrams to a multicast group. */
    public static final int MULTICAST_QPN = 0xFFFFFF;
    /**
     * Application-driven mode: how long after the last cycle an application thread ran the engine thread
     * waits in {@code select} (woken by a datagram) instead of parking briefly: nobody polls this engine,
     * e.g. the passive side of a bandwidth test.
     */
    static final long APP_IDLE_NANOS = 100_000;
    /**
     * Application-driven mode: the longest the engine thread parks while pollers drive the engine (its
     * back-off starts short again once one of its own cycles finds work). Each wake costs a context switch
     * on a core a poller wants: parking at most {@link #APP_IDLE_NANOS}, the engine threads of a two-process
     * 2 B write-lat took 8-12 % of a core each and the average was 11.9-13.3 us (p99 30-31); at most 1 ms,
     * 3-4 % and 10.9-11.2 us (p99 23-25), the typical 9-10 us either way, read-lat, send-lat and the
     * bandwidth tests no worse.
     */
    static final long ACTIVE_PARK_NANOS = 1_000_000;
    /**
     * Whether the posting and polling threads run the engine ({@code jrdma.rxe.appDriven}, default true;
     * {@code false} leaves every cycle to the engine threads).
     */
    static final boolean APP_DRIVEN = !"false".equals(System.getProperty("jrdma.rxe.appDriven", "true").strip());
    /**
     * Application-driven mode: within this long of an application thread's cycle, the engine thread leaves
     * the sockets to the pollers (they poll again sooner than it would); beyond it, it reads them itself.
     */
    static final long BUSY_POLL_NANOS = 50_000;
    /** Most duty cycles one call of {@link #doWork()} runs back to back while doorbells keep ringing. */
    static final int MAX_ROUNDS = 4;

    /** The most engines {@link #shared(int, boolean, boolean)} runs in one JVM ({@code jrdma.rxe.engines}). */
    public static final int MAX_SHARED = 16;
    /** The JVM's engines by index, started on first use (guarded by the array itself). */
    private static final Consumer<SelectionKey> IGNORE_KEY = k -> { };
    private static final RxeEngine[] SHARED = new RxeEngine[MAX_SHARED];

    private final Selector selector;
    private volatile RxePort[] ports = new RxePort[0];
    /** Packets handed to {@link #transmit} so far (engine holder): bounds the sending of one duty cycle. */
    private long transmitted;
    private final DoorbellQueue<Task> doorbells = new DoorbellQueue<>(this::wake);
    private final TimerQueue timers;
    /** Who runs the duty cycle, and the commands waiting for it. */
    private final EngineHolder holder = new EngineHolder("rxe engine");
    /** One ICRC calculator per buffer: each caches the byte-buffer view of the segment it sees. */
    private final Icrc rxIcrc = new Icrc();
    private final Icrc txIcrc = new Icrc();
    private final MemorySegment rxSegment;
    private final ByteBuffer rxBuffer;
    private final MemorySegment txSegment;
    private final ByteBuffer txBuffer;
    private final RxePacket rx = new RxePacket();
    private final RxePacket replay = new RxePacket();
    private final PacketPool pool = new PacketPool(POOL_BUFFERS, POOL_BUFFER_SIZE);
    private final MemorySegment grh = MemorySegment.ofArray(new byte[40]);
    private volatile AgentRunner runner;
    private boolean checkIcrc = true;
    /** The thread's role name ({@link #roleName()}). */
    private String role = "rxe-engine";
    /** Whether the posting and polling threads run the engine ({@link #APP_DRIVEN}). */
    private final boolean appDriven;
    /** How long after a poller's last cycle the engine thread waits in select ({@link #APP_IDLE_NANOS}). */
    private final long appIdle;
    /** When an application thread last ran (or tried to run) a cycle (application-driven mode). */
    private volatile long lastAppCycle;
    /** The engine thread waits in {@code select} (application-driven mode). */
    private volatile boolean selecting;

    /** Something the engine runs when its doorbell rings: a QP's transport. */
    public interface Task {
        /**
         * Runs what is due (engine holder). Returns the work done.
         *
         * @return the work done
         */
        int process();
    }

    /**
     * An engine on {@code clock}, application-driven if {@code jrdma.rxe.appDriven=true}; start it
     * with {@link #start} or drive it with an invoker.
     *
     * @param clock the clock of the timers
     */
    public RxeEngine(NanoClock clock) {
        this(clock, APP_DRIVEN, APP_IDLE_NANOS);
    }

    /**
     * An engine on {@code clock}; start it with {@link #start} or drive it with an invoker.
     *
     * @param clock the clock of the timers
     * @param appDriven whether the posting and polling threads run it
     * @param appIdleNanos how long after a poller's last cycle its thread waits in select
     */
    RxeEngine(NanoClock clock, boolean appDriven, long appIdleNanos) {
        this.appDriven = appDriven;
        this.appIdle = appIdleNanos;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the rxe engine's selector", e);
        }
        this.timers = new TimerQueue(clock);
        Arena arena = Arena.ofAuto();
        this.rxSegment = arena.allocate(MAX_DATAGRAM, 64);
        this.rxBuffer = rxSegment.asByteBuffer();
        this.txSegment = arena.allocate(MAX_DATAGRAM, 64);
        this.txBuffer = txSegment.asByteBuffer();
    }

    /**
     * The JVM's first engine, started on first use on its own thread ({@code shared(0, ...)}).
     *
     * @param busySpin whether the engine spins instead of backing off
     * @param checkIcrc whether received ICRCs are checked
     * @return the JVM's first engine
     */
    public static RxeEngine shared(boolean busySpin, boolean checkIcrc) {
        return shared(0, busySpin, checkIcrc);
    }

    /**
     * The JVM's engine {@code index}, started on first use on its own thread, named {@code jrdma-rxe-engine}
     * (index 0) or {@code jrdma-rxe-engine-<index>}. The settings of the call that starts it hold for its life.
     *
     * @param index the engine's index, 0 .. {@link #MAX_SHARED} - 1
     * @param busySpin whether the engine spins instead of backing off
     * @param checkIcrc whether received ICRCs are checked
     * @return the JVM's engine {@code index}
     * @throws IllegalArgumentException if {@code index} is outside 0 .. {@link #MAX_SHARED} - 1
     */
    public static RxeEngine shared(int index, boolean busySpin, boolean checkIcrc) {
        if (index < 0 || index >= MAX_SHARED) {
            throw new IllegalArgumentException("rxe engine index " + index + " outside 0.." + (MAX_SHARED - 1));
        }
        synchronized (SHARED) {
            RxeEngine e = SHARED[index];
            if (e == null) {
                e = new RxeEngine(NanoClock.SYSTEM);
                e.role = index == 0 ? "rxe-engine" : "rxe-engine-" + index;
                e.checkIcrc = checkIcrc;
                e.start(e.idleStrategy(busySpin));
                SHARED[index] = e;
            }
            return e;
        }
    }

    /**
     * An engine of one device's own (a device opened with a configuration), started on its own thread
     * named {@code jrdma-rxe-engine-<device>}; {@link #stop} ends it.
     *
     * @param device the device's name
     * @param busySpin whether the engine spins instead of backing off
     * @param checkIcrc whether received ICRCs are checked
     * @return the running engine
     */
    public static RxeEngine dedicated(String device, boolean busySpin, boolean checkIcrc) {
        RxeEngine e = new RxeEngine(NanoClock.SYSTEM);
        e.role = "rxe-engine-" + device;
        e.checkIcrc = checkIcrc;
        e.start(e.idleStrategy(busySpin));
        return e;
    }

    /**
     * The idle strategy of the engine's thread: spin, or back off; in application-driven mode it spins
     * and yields less, as the threads that poll do the work.
     */
    IdleStrategy idleStrategy(boolean busySpin) {
        return busySpin ? IdleStrategy.busySpin()
                : appDriven ? IdleStrategy.backoff(50, 10, 10_000, 1_000_000) : IdleStrategy.defaultStrategy();
    }

    /**
     * Whether the posting and polling threads run this engine ({@code jrdma.rxe.appDriven}).
     *
     * @return whether the posting and polling threads run this engine
     */
    public boolean applicationDriven() {
        return appDriven;
    }

    /** Stops the engine's thread and closes its selector, for good (an engine of {@link #dedicated}). */
    public void stop() {
        AgentRunner r = runner;
        runner = null;
        if (r != null) {
            r.close();
        }
        try {
            selector.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }

    /**
     * Runs the engine on its own daemon thread.
     *
     * @param idle the idle strategy
     */
    public void start(IdleStrategy idle) {
        this.runner = new AgentRunner(this, idle);
    }

    /**
     * Whether received ICRCs are checked (before {@link #start}).
     *
     * @param check whether to check
     */
    public void checkIcrc(boolean check) {
        this.checkIcrc = check;
    }

    // ------------------------------------------------------------------------------------------ API

    /**
     * The engine's timers (engine holder only).
     *
     * @return the engine's timers (engine holder only)
     */
    public TimerQueue timers() {
        return timers;
    }

    /**
     * The pool for packets that wait (engine holder only).
     *
     * @return the pool for packets that wait (engine holder only)
     */
    public PacketPool pool() {
        return pool;
    }

    /**
     * Scratch space for the 40-byte GRH a UD receive gets (engine holder only).
     *
     * @return scratch space for the 40-byte GRH a UD receive gets (engine holder only)
     */
    public MemorySegment grh() {
        return grh;
    }

    /**
     * The packet a QP parses a queued packet into (engine holder only).
     *
     * @return the packet a QP parses a queued packet into (engine holder only)
     */
    public RxePacket replayPacket() {
        return replay;
    }

    /**
     * The transmit buffer: a QP builds one packet in it from offset 0 (BTH .. ICRC) and hands it to
     * {@link #transmit}. Engine holder only.
     *
     * @return the transmit buffer
     */
    public MemorySegment txSegment() {
        return txSegment;
    }

    /**
     * Schedules the task of {@code bell} (a QP) on this engine (any thread; allocation-free). Rung by the
     * thread that holds the engine, the doorbell wakes nobody: the holder serves it before it lets go.
     *
     * @param bell the QP's doorbell
     */
    public void ring(Doorbell<Task> bell) {
        if (holder.heldByCaller()) {
            doorbells.ringQuietly(bell);
        } else {
            doorbells.ring(bell);
        }
    }

    /**
     * Schedules {@code qp} for work an application thread just posted (any thread; allocation-free). In
     * application-driven mode the posting thread runs the duty cycle itself when nobody else does (Linux
     * rxe likewise runs the requester in the caller of {@code ibv_post_send} when it can), so the packet
     * leaves without a thread hand-off; if another thread holds the engine, that thread serves the
     * doorbell before it lets go ({@link #doWork()}). With engine threads it wakes the engine.
     *
     * @param bell the QP's doorbell
     */
    public void post(Doorbell<Task> bell) {
        if (!appDriven || holder.heldByCaller()) {
            ring(bell);
            return;
        }
        doorbells.ringQuietly(bell);
        applicationCycle();
    }

    /**
     * Whether the caller holds the engine: runs its duty cycle (or a command inline) right now, or the
     * engine has no thread (driven by an invoker, or stopped).
     *
     * @return true if the caller holds the engine
     */
    public boolean onEngineThread() {
        return holder.heldByCaller() || runner == null;
    }

    /**
     * Runs {@code r} on the engine later, whoever holds it next.
     *
     * @param r what to run
     */
    public void execute(Runnable r) {
        holder.add(r);
        wake();
    }

    /**
     * Runs {@code r} on the engine and waits for it: inline when the caller holds the engine, or, in
     * application-driven mode, when it can take the engine (after the commands queued before it); else
     * queued for the holder.
     *
     * @param r what to run
     */
    public void runSync(Runnable r) {
        if (onEngineThread()) {
            r.run();
            return;
        }
        holder.runSync(r, appDriven, this::wake, this::wake);
    }

    /**
     * Starts receiving on {@code port}'s sockets and serving its QPs.
     *
     * @param port the device port
     */
    public void addPort(RxePort port) {
        runSync(() -> {
            for (UdpPort s : port.sockets()) {
                register(s);
            }
            RxePort[] p = Arrays.copyOf(ports, ports.length + 1);
            p[p.length - 1] = port;
            ports = p;
        });
    }

    /**
     * Stops receiving on {@code port} and closes its sockets (the device was closed).
     *
     * @param port the port to remove
     */
    public void removePort(RxePort port) {
        runSync(() -> {
            for (UdpPort s : port.sockets()) {
                unregister(s);
            }
            RxePort[] cur = ports;
            RxePort[] next = new RxePort[cur.length];
            int n = 0;
            for (RxePort p : cur) {
                if (p != port) {
                    next[n++] = p;
                }
            }
            ports = Arrays.copyOf(next, n);
        });
    }

    /**
     * Starts receiving on a multicast group's socket of {@code port}.
     *
     * @param port the device port
     * @param socket the group's socket ({@link UdpPort#multicast})
     */
    public void addSocket(RxePort port, UdpPort socket) {
        runSync(() -> {
            register(socket);
            port.attach(socket);
        });
    }

    /**
     * Stops receiving on a multicast group's socket of {@code port} and closes it (its last member left).
     *
     * @param port the device port
     * @param socket the group's socket
     */
    public void removeSocket(RxePort port, UdpPort socket) {
        runSync(() -> {
            port.detach(socket);
            unregister(socket);
        });
    }

    private void register(UdpPort s) {
        try {
            s.channel().register(selector, SelectionKey.OP_READ, s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void unregister(UdpPort s) {
        SelectionKey k = s.channel().keyFor(selector);
        if (k != null) {
            k.cancel();
        }
        s.close();
    }

    /**
     * Seals the ICRC of the packet of {@code length} bytes at the start of {@link #txSegment()}
     * ({@link RxePort#seal}) and sends it from {@code port}'s socket to {@code peer}, through the port's
     * fault injector. Returns false
     * only when the socket cannot take it now (the caller keeps its state and tries again); a packet
     * lost on the way, by the socket or on purpose, counts as sent (the sending QP counts it:
     * {@code sent_pkts}; the port counts injected faults and {@code send_err}). Engine holder;
     * allocation-free.
     *
     * @param port the device port
     * @param peer the destination
     * @param length the packet length, ICRC included
     * @return false if the socket could not take the packet now
     */
    public boolean transmit(RxePort port, Peer peer, int length) {
        transmitted++;
        port.seal(txIcrc, txSegment, length, port.udp().localPort(), peer);
        if (port.faults().refuses(txSegment, length)) {
            return false;
        }
        CounterSet c = port.engineCounters();
        switch (port.faults().decide(txSegment, length)) {
            case DROP -> {
                c.inc(Counter.INJECTED_LOSS);
                return true;
            }
            case DUPLICATE -> {
                if (!send(port, txBuffer, length, peer)) {
                    return false;
                }
                c.inc(Counter.INJECTED_DUPLICATE);
                send(port, txBuffer, length, peer);
                sendHeld(port);
                return true;
            }
            case REORDER -> {
                if (port.held == null) {
                    PacketPool.Buffer b = pool.take();
                    if (b != null) {
                        b.copyFrom(txSegment, 0, length);
                        b.peer = peer;
                        port.held = b;
                        c.inc(Counter.INJECTED_REORDER);
                        return true;
                    }
                }
                boolean ok = send(port, txBuffer, length, peer);
                sendHeld(port);
                return ok;
            }
            default -> {
                boolean ok = send(port, txBuffer, length, peer);
                if (ok) {
                    sendHeld(port);
                }
                return ok;
            }
        }
    }

    private boolean send(RxePort port, ByteBuffer buf, int length, Peer peer) {
        buf.clear().limit(length);
        try {
            if (port.udp().channel().send(buf, peer.address()) == 0) {
                return false;
            }
        } catch (IOException e) {
            // Unreachable, too big, closed: the packet is lost and RC's retries cope.
            port.engineCounters().inc(Counter.SEND_ERR);
        }
        return true;
    }

    private void sendHeld(RxePort port) {
        PacketPool.Buffer h = port.held;
        if (h != null) {
            port.held = null;
            ByteBuffer v = h.view;
            v.clear().limit(h.length);
            try {
                port.udp().channel().send(v, h.peer.address());
            } catch (IOException e) {
                port.engineCounters().inc(Counter.SEND_ERR);
            }
            pool.give(h);
        }
    }

    // ------------------------------------------------------------------------------------------ agent

    /**
     * A thread that polls an empty CQ of one of the engine's QPs runs a duty cycle if nobody else does
     * (application-driven mode).
     */
    @Override
    public int progress() {
        return applicationCycle();
    }

    /**
     * A poller armed its CQ and is about to wait for the event: the engine thread stops leaving the cycles
     * to polling threads and waits in {@code select} for datagrams. Any thread's next poll or post takes
     * the engine again.
     */
    @Override
    public void handBack() {
        if (appDriven) {
            lastAppCycle = System.nanoTime() - appIdle;
            wake();
        }
    }

    /** An application thread's turn: duty cycles if it can take the engine (application-driven mode). */
    private int applicationCycle() {
        lastAppCycle = System.nanoTime();
        if (selecting) {
            // Then stop waiting in select: a poller drives the engine now (it wrote lastAppCycle first,
            // the engine thread writes selecting and then reads lastAppCycle: Dekker).
            selector.wakeup();
        }
        try {
            return doWork();
        } catch (RuntimeException e) {
            // As on the engine thread: a failed cycle is logged, not thrown into the application's post or poll.
            LOG.log(System.Logger.Level.ERROR, "[" + role + "] duty cycle failed", e);
            return 1;
        }
    }

    /**
     * Runs duty cycles while it can take the engine. A doorbell rung by another thread after this cycle
     * drained the doorbells and before it lets go of the engine finds the engine held and is left to the
     * holder, so the doorbells are looked at again once the engine is free (a few rounds at most; then the
     * engine thread is woken for what is left).
     */
    @Override
    public int doWork() {
        if (appDriven && System.nanoTime() - lastAppCycle < BUSY_POLL_NANOS && !hasPendingWork()) {
            AgentRunner r = runner;
            if (r != null && r.isAgentThread()) {
                // Application threads busy-poll this engine and read its sockets; its own thread runs a cycle
                // only for what they leave (a due timer, a doorbell, a command). Taking the engine for nothing
                // would make a poller wait whenever this thread is descheduled while it holds it. A thread that
                // polls less often (a control-path waiter parking between polls, the passive side of a
                // bandwidth run) leaves the sockets to this thread's cycles.
                return 0;
            }
        }
        int work = 0;
        int rounds = appDriven ? MAX_ROUNDS : 1; // the engine thread's own loop runs the next cycle at once
        for (int round = 0; holder.tryHold(); ) {
            work += dutyCycle();
            if (doorbells.isEmpty() && !holder.hasCommands()) {
                return work;
            }
            if (++round == rounds) {
                if (appDriven) {
                    wake(); // more to do than a thread's turn: the engine thread takes the rest unless it comes back
                }
                return work;
            }
        }
        return work;
    }

    /** Whether an application thread ran (or tried to run) a cycle within the last {@link #appIdle}. */
    private boolean appActive() {
        return System.nanoTime() - lastAppCycle < appIdle;
    }

    private int dutyCycle() {
        try {
            return cycle();
        } finally {
            holder.release();
        }
    }

    private int cycle() {
        int work = timers.poll();
        work += holder.runCommands();
        RxePort[] ps = ports;
        for (RxePort p : ps) {
            for (UdpPort s : p.sockets()) {
                work += receive(p, s);
            }
        }
        long txLimit = transmitted + TX_PER_CYCLE;
        for (int i = 0; i < QP_BATCH && transmitted < txLimit; i++) {
            Task q = doorbells.poll();
            if (q == null) {
                break;
            }
            work += 1 + q.process();
        }
        for (RxePort p : ps) {
            sendHeld(p);
        }
        return work;
    }

    private int receive(RxePort port, UdpPort socket) {
        int n = 0;
        for (; n < RX_BATCH; n++) {
            rxBuffer.clear();
            SocketAddress from;
            try {
                from = socket.channel().receive(rxBuffer);
            } catch (IOException e) {
                port.engineCounters().inc(Counter.RCVD_DROPPED);
                break;
            }
            if (from == null) {
                break;
            }
            handle(port, socket, (InetSocketAddress) from, rxBuffer.position());
        }
        return n;
    }


    /** rxe_udp_encap_recv + rxe_rcv: checks, ICRC, demultiplexing. */
    private void handle(RxePort port, UdpPort socket, InetSocketAddress from, int length) {
        CounterSet c = port.engineCounters();
        if (length < Bth.LENGTH + Icrc.LENGTH) {
            c.inc(Counter.RCVD_DROPPED);
            return;
        }
        socket.sender(from);
        long match = Icrc.NO_MATCH;
        boolean v4 = from.getAddress() instanceof Inet4Address;
        if (checkIcrc) {
            if (v4) {
                match = rxIcrc.solveIpv4Id(rxSegment, 0, length, socket.senderIpv4, socket.ipv4(), from.getPort(),
                        socket.localPort());
                if (match == Icrc.NO_MATCH) {
                    c.inc(Counter.RCVD_ICRC_ERR);
                    return;
                }
            } else if (from.getAddress() instanceof Inet6Address) {
                int expect = rxIcrc.ipv6(rxSegment, 0, length, socket.senderHigh, socket.senderLow, socket.high(),
                        socket.low(), from.getPort(), socket.localPort());
                if (expect != Icrc.stored(rxSegment, 0, length)) {
                    c.inc(Counter.RCVD_ICRC_ERR);
                    return;
                }
            }
        }
        PacketTap tap = port.tap();
        if (tap != null) {
            boolean solved = match != Icrc.NO_MATCH;
            Taps.received(tap, socket, v4, socket.senderIpv4, socket.senderHigh, socket.senderLow, from.getPort(),
                    solved ? Icrc.matchedId(match) : 0, solved ? Icrc.matchedFlags(match) : 0x4000, rxSegment, 0,
                    length);
        }
        if ((rxSegment.get(ValueLayout.JAVA_BYTE, Bth.FLAGS_OFFSET) & Bth.MASK_TVER) != 0) {
            // rxe_recv.c hdr_check: a transport header version other than 0 is dropped, QP1 included.
            c.inc(Counter.RCVD_DROPPED);
            return;
        }
        int qpn = Bth.destQpn(rxSegment, 0);
        if (socket.mgid() != null) {
            multicast(port, socket, from, v4, length, match);
            return;
        }
        if (qpn == RxePort.GSI_QPN) {
            RxePort.Gsi gsi = port.gsi();
            if (gsi == null) {
                c.inc(Counter.RCVD_DROPPED);
                return;
            }
            gsi.receive(rxSegment, length, from);
            return;
        }
        if (!rx.parse(rxSegment, 0, length) || (rx.bth.pkey() & 0x7fff) != 0x7fff) {
            c.inc(Counter.RCVD_DROPPED);
            return;
        }
        RxePort.Qp q = port.qp(qpn);
        if (q == null) {
            c.inc(Counter.RCVD_DROPPED);
            return;
        }
        rx.source(v4 ? socket.senderIpv4 : 0, v4 ? 0 : socket.senderHigh, v4 ? 0 : socket.senderLow, from.getPort(),
                match);
        q.receive(rx);
    }

    /**
     * {@code rxe_rcv_mcast_pkt}: a datagram that arrived on a multicast group's socket goes to every QP of the
     * device attached to the group, each through its own state and Q_Key checks (a failed copy is skipped:
     * unreliable datagram service), except the QP that sent it when it came from this device (rxe does not
     * return a locally sent multicast to its sender). The destination QPN must be 0xFFFFFF. Allocation-free.
     */
    private void multicast(RxePort port, UdpPort socket, InetSocketAddress from, boolean v4, int length,
            long match) {
        CounterSet c = port.engineCounters();
        if (Bth.destQpn(rxSegment, 0) != MULTICAST_QPN || !rx.parse(rxSegment, 0, length)
                || (rx.bth.pkey() & 0x7fff) != 0x7fff) {
            c.inc(Counter.RCVD_DROPPED);
            return;
        }
        UdpPort own = port.udp();
        boolean local = v4 ? socket.senderIpv4 == own.ipv4()
                : socket.senderHigh == own.high() && socket.senderLow == own.low();
        int srcQpn = rx.deth.srcQpn();
        rx.source(v4 ? socket.senderIpv4 : 0, v4 ? 0 : socket.senderHigh, v4 ? 0 : socket.senderLow, from.getPort(),
                match);
        QpImpl[] members = socket.core().mcastMembers(socket.mgid());
        for (QpImpl m : members) {
            if (local && m.qpNum() == srcQpn) {
                continue;
            }
            RxePort.Qp q = port.qp(m.qpNum());
            if (q != null) {
                q.receive(rx);
            }
        }
    }

    private void wake() {
        AgentRunner r = runner;
        if (r != null) {
            r.wakeup();
        }
    }

    /**
     * Whether the engine thread should run another cycle instead of parking. In application-driven mode,
     * not while another thread holds the engine: that thread serves what is pending before it lets go,
     * and the engine thread would spin on a CAS it cannot win, taking a CPU from the threads that drive
     * the QPs.
     */
    @Override
    public boolean hasPendingWork() {
        if (appDriven && holder.isHeld()) {
            return false;
        }
        return !doorbells.isEmpty() || holder.hasCommands() || timers.nanosToNext() == 0;
    }

    @Override
    public void park(long nanos) {
        long t = Math.min(nanos, timers.nanosToNext());
        if (t <= 0) {
            return;
        }
        if (appDriven) {
            if (appActive()) {
                // Polling threads run the cycles; stay out of their way. The back-off lengthens the park while
                // they leave this thread nothing to do and shortens it again once a cycle of its own finds work
                // (a poller that parks between polls leaves it the sockets).
                LockSupport.parkNanos(this, Math.min(t, ACTIVE_PARK_NANOS));
                return;
            }
            selecting = true; // then read lastAppCycle: a poller writes it, then reads selecting (Dekker)
            try {
                if (appActive()) {
                    LockSupport.parkNanos(this, t); // a poller came back; it may not have seen selecting
                } else if (!hasPendingWork()) {
                    selector.select(IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(t + 999_999)));
                }
            } catch (IOException e) {
                LockSupport.parkNanos(this, t);
            } finally {
                selecting = false;
            }
            return;
        }
        try {
            // Only waits: the datagrams are read in the next duty cycle. The consumer form keeps the
            // ready keys out of the selected-key set, whose HashSet.add allocates a node per key and wake.
            selector.select(IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(t + 999_999)));
        } catch (IOException e) {
            // A broken selector: fall back to sleeping so that the engine keeps polling.
            LockSupport.parkNanos(this, t);
        }
    }

    @Override
    public void unpark(Thread thread) {
        if (appDriven && !selecting) {
            LockSupport.unpark(thread);
        } else {
            selector.wakeup();
        }
    }

    /**
     * Whether the engine thread waits in {@code select} right now (application-driven mode; tests).
     *
     * @return whether the engine thread waits in select
     */
    boolean selecting() {
        return selecting;
    }

    @Override
    public String roleName() {
        return role;
    }
}
