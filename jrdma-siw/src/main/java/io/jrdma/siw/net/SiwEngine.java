package io.jrdma.siw.net;

import io.jrdma.internal.engine.Agent;
import io.jrdma.internal.engine.AgentRunner;
import io.jrdma.internal.engine.DoorbellQueue;
import io.jrdma.internal.engine.EngineHolder;
import io.jrdma.internal.engine.IdleStrategy;
import io.jrdma.internal.engine.NanoClock;
import io.jrdma.internal.engine.TimerQueue;
import io.jrdma.internal.verbs.CqImpl;
import io.jrdma.siw.SiwConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A siw engine: the agent that owns a set of QPs and their TCP channels and runs their receive and
 * transmit machines (siw's rx softirq and tx thread in one). Exactly one thread runs a duty cycle
 * at a time — the engine's own thread, or, in application-driven mode, whichever thread polls one
 * of its CQs first — so protocol code takes no locks.
 *
 * <p>Parking: in application-driven mode (the default) the engine thread parks briefly while
 * application threads poll, so they do not wait for a blocked select, and blocks in select once
 * nobody has polled for {@link #APP_IDLE_NANOS}, or at once when the poller armed its CQ to wait for
 * the event ({@link #handBack()}); a polling thread that comes back wakes it first. With engine
 * threads ({@code jrdma.siw.appDriven=false}) it spins, yields, then blocks in
 * {@link Selector#select(long)}; a doorbell wakes it with {@link Selector#wakeup()}.
 */
public final class SiwEngine implements Agent, CqImpl.ProgressHook {
    private static final System.Logger LOG = System.getLogger("io.jrdma.siw");
    /**
     * In application-driven mode, how long after the last application-driven cycle the engine
     * thread waits in {@code select} (woken by the kernel when a socket becomes ready) instead of
     * parking briefly: nobody polls this engine, e.g. the passive side of a bandwidth test.
     */
    static final long APP_IDLE_NANOS = 2_000_000;
    /** {@link #APP_IDLE_NANOS} unless {@code jrdma.siw.appIdleNanos} says otherwise (measurements). */
    private static final long APP_IDLE = Long.getLong("jrdma.siw.appIdleNanos", APP_IDLE_NANOS);
    /**
     * In application-driven mode, how long an engine nobody drives keeps polling its sockets after
     * its thread last found work, instead of waiting in {@code select}: {@code jrdma.siw.passiveSpinNanos},
     * default 0 (wait at once). The passive side of a bandwidth run then reads like a busy-polling
     * TCP server (and like perftest, which polls by default) instead of paying a wake-up per burst;
     * it costs a core while traffic flows and goes back to {@code select} when it stops.
     */
    static final long PASSIVE_SPIN = Math.max(0, Long.getLong("jrdma.siw.passiveSpinNanos", 0));
    /**
     * Application-driven mode: a polling thread's cycle reads the sockets of up to this many QPs
     * directly instead of asking {@code epoll} which are ready ({@code jrdma.siw.directPollQps},
     * default 2; 0 = always select), as a busy-polling TCP reader does; every 16th cycle, and any
     * cycle while a QP waits for room to write, selects as usual (listeners, connects, writability).
     */
    static final int DIRECT_POLL_QPS = Math.max(0, Integer.getInteger("jrdma.siw.directPollQps", 2));
    /** Parking waits in select for readiness and handles nothing there. */
    private static final Consumer<SelectionKey> IGNORE_KEY = k -> { };
    /** Ready operations reported as {@link Schedulable#onReadable()}: data, or a connection to accept. */
    private static final int READABLE_OPS = SelectionKey.OP_READ | SelectionKey.OP_ACCEPT;
    /** Ready operations reported as {@link Schedulable#onWritable()}: room, or a connect that finished. */
    private static final int WRITABLE_OPS = SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT;
    /** Most duty cycles one call of {@link #doWork()} runs back to back. */
    static final int MAX_ROUNDS = 4;

    private final String name;
    private final SiwConfig config;
    private final Selector selector;
    /** QPs with pending transmit work or state changes. */
    public final DoorbellQueue<Schedulable> doorbells;
    /** Timers of the engine's QPs. */
    public final TimerQueue timers = new TimerQueue(NanoClock.SYSTEM);
    /** Who runs the duty cycle, and the commands waiting for it. */
    private final EngineHolder holder;
    /** What runs after the next select ({@link #afterNextSelect}). */
    private final ConcurrentLinkedQueue<Runnable> afterSelect = new ConcurrentLinkedQueue<>();
    /** State the engine's QPs share, by kind (see {@link #local}). */
    private final ConcurrentHashMap<Class<?>, Object> locals = new ConcurrentHashMap<>();
    private final Consumer<SelectionKey> onKey = this::onKey;
    private volatile AgentRunner runner;
    /** When an application thread last ran a cycle (application-driven mode). */
    private volatile long lastAppCycle;
    /** The engine thread waits in {@code select} (application-driven mode). */
    private volatile boolean selecting;
    /** How long this engine's thread polls on after its last work when nobody drives it ({@link #PASSIVE_SPIN}). */
    private final long passiveSpin;
    /** How long after a poller's last cycle the engine thread waits in {@code select} ({@link #APP_IDLE}). */
    private final long appIdle;
    /** When the engine's own thread last found work (engine thread only; {@link #passiveSpin}). */
    private long lastEngineWork;
    /**
     * The doorbell of the post whose own duty cycle runs now, or null (owner only): that QP may hold
     * back the tail of its batch for its next post ({@link #posting}, {@link #hold}).
     */
    private io.jrdma.internal.engine.Doorbell<Schedulable> posting;
    /** Doorbells of QPs holding a transmit tail: rung again by the next duty cycle (owner only). */
    @SuppressWarnings("unchecked")
    private io.jrdma.internal.engine.Doorbell<Schedulable>[] held = new io.jrdma.internal.engine.Doorbell[4];
    private int heldCount;
    /** Keys of the engine's attached QPs (owner only), read directly by polling cycles ({@link #DIRECT_POLL_QPS}). */
    private SelectionKey[] pollable = new SelectionKey[4];
    private int pollableCount;
    /** Cycles of polling threads, to select every 16th (owner only). */
    private int pollCycles;
    /** Whether {@link #held} is not empty (read by the engine thread before it waits in select). */
    private volatile boolean anyHeld;

    /** Something the engine runs when its doorbell rings. */
    public interface Schedulable {
        /** Runs on the engine: transmit what can go, or flush. Returns the work done. */
        int onDoorbell();

        /** The channel is readable (a listening channel: a connection waits to be accepted). */
        int onReadable();

        /** The channel accepts more bytes (a connecting channel: the connect finished). */
        int onWritable();
    }

    /** An engine; its thread starts on first use. */
    public SiwEngine(String name, SiwConfig config) {
        this(name, config, PASSIVE_SPIN);
    }

    /** An engine whose thread, when nobody drives it, polls for {@code passiveSpinNanos} after its last work. */
    SiwEngine(String name, SiwConfig config, long passiveSpinNanos) {
        this(name, config, passiveSpinNanos, APP_IDLE);
    }

    /** {@link #SiwEngine(String, SiwConfig, long)} leaving the cycles to pollers for {@code appIdleNanos} (tests). */
    SiwEngine(String name, SiwConfig config, long passiveSpinNanos, long appIdleNanos) {
        this.name = name;
        this.holder = new EngineHolder("siw engine " + name);
        this.appIdle = appIdleNanos;
        this.config = config;
        this.passiveSpin = passiveSpinNanos;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for siw engine " + name, e);
        }
        this.doorbells = new DoorbellQueue<>(this::wake);
    }

    private void ensureStarted() {
        if (runner == null) {
            synchronized (this) {
                if (runner == null) {
                    IdleStrategy idle = config.busyPoll() ? IdleStrategy.busySpin()
                            : config.applicationDriven() ? IdleStrategy.backoff(50, 10, 10_000, 1_000_000)
                            : IdleStrategy.defaultStrategy();
                    runner = new AgentRunner(this, idle);
                }
            }
        }
    }

    /**
     * Stops the engine's thread and closes its selector, for good (its device was closed, and with it
     * every QP the engine served). Idempotent.
     */
    public void stop() {
        AgentRunner r;
        synchronized (this) {
            r = runner;
            runner = null;
        }
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
     * The engine's instance of {@code kind}, created by {@code factory} on first use: state that the
     * engine's QPs share because only one of them runs at a time (staging buffers, buffer pools).
     * Any thread may look it up (QPs do once, when created); only the engine thread may use it.
     */
    public <T> T local(Class<T> kind, Supplier<? extends T> factory) {
        return kind.cast(locals.computeIfAbsent(kind, k -> factory.get()));
    }

    /** The selector the engine's channels register with (engine thread only). */
    public Selector selector() {
        return selector;
    }

    /** Whether CQ polls drive the engine. */
    public boolean applicationDriven() {
        return config.applicationDriven();
    }

    private void wake() {
        AgentRunner r = runner;
        if (r != null) {
            r.wakeup();
        }
    }

    /** Whether the calling thread runs the engine's duty cycle right now. */
    public boolean onEngine() {
        return holder.heldByCaller();
    }

    /** Queues a command for the engine (any thread). */
    public void execute(Runnable command) {
        ensureStarted();
        holder.add(command);
        wake();
    }

    /**
     * Runs {@code command} on the engine soon (any thread): at once on the calling thread when nobody
     * runs the engine (after the commands queued before it), else queued for whoever runs it next. The
     * control path (connection hand-over, disconnect) thus costs no wake-up of a parked engine thread.
     */
    public void runOrQueue(Runnable command) {
        if (onEngine()) {
            command.run();
            return;
        }
        ensureStarted();
        if (!holder.tryRunInline(command, this::wake)) {
            holder.add(command);
            wake();
        }
    }

    /**
     * Runs {@code r} on the engine and waits for it: on the calling thread when already on the engine
     * or when nobody runs the engine right now (the hand-over of a connection then takes no thread
     * switch), else queued for the engine.
     */
    public void runSync(Runnable r) {
        if (onEngine()) {
            r.run();
            return;
        }
        ensureStarted();
        holder.runSync(r, true, this::wake, this::wake);
    }

    /**
     * Runs {@code r} on the engine after a select that starts after this call (engine thread only):
     * keys cancelled before the call are deregistered by then, and the sockets of channels closed
     * before it are released (the JDK defers the close of a channel registered with a selector until
     * then, and meanwhile only shuts its output down).
     */
    public void afterNextSelect(Runnable r) {
        afterSelect.add(r);
    }

    /**
     * Cancels {@code key}, a key of this engine's selector whose channel another engine takes over (any
     * thread), and wakes the engine so that its next select deregisters it: the JDK releases the socket
     * of a closed channel only once no selector holds a key of it.
     */
    public void cancel(SelectionKey key) {
        key.cancel();
        wake();
    }

    /** Rings a QP's doorbell. */
    public void ring(io.jrdma.internal.engine.Doorbell<Schedulable> bell) {
        ensureStarted();
        doorbells.ring(bell);
    }

    /**
     * Rings a QP's doorbell for work an application thread just posted. In application-driven mode
     * the posting thread runs the duty cycle itself instead of waking the engine thread (Linux siw
     * likewise transmits in the caller of {@code ibv_post_send} when the send queue was idle,
     * {@code siw_post_send}): the WQE goes out, and whatever the peer already answered is placed,
     * without a thread hand-off. If another thread runs the cycle, it sees the doorbell before it
     * lets go (see {@link #doWork()}).
     */
    public void post(io.jrdma.internal.engine.Doorbell<Schedulable> bell) {
        if (!config.applicationDriven()) {
            ring(bell);
            return;
        }
        // No need to start the engine thread for this: the caller runs the cycle (the connection's
        // attach already started it for timers and for QPs nobody polls).
        doorbells.ringQuietly(bell);
        lastAppCycle = System.nanoTime();
        doWork(bell);
    }

    /**
     * Whether the running duty cycle is the own cycle of a post to {@code bell}'s QP, run by the posting
     * thread (application-driven mode; engine owner only). Such a QP may write its batch up to the last
     * full TCP segment and keep the rest for its next post ({@link #hold}).
     */
    public boolean posting(io.jrdma.internal.engine.Doorbell<Schedulable> bell) {
        return posting == bell;
    }

    /**
     * Called by a QP during its posting cycle when it kept back the tail of its batch: the next duty
     * cycle, whoever runs it (the application's next post or CQ poll, or the engine thread after its
     * park), rings the QP again, and a cycle that is not the QP's own post writes the tail. Owner only.
     */
    public void hold(io.jrdma.internal.engine.Doorbell<Schedulable> bell) {
        for (int i = 0; i < heldCount; i++) {
            if (held[i] == bell) {
                return;
            }
        }
        if (heldCount == held.length) {
            held = java.util.Arrays.copyOf(held, heldCount * 2);
        }
        held[heldCount++] = bell;
        anyHeld = true;
    }

    @Override
    public int progress() {
        lastAppCycle = System.nanoTime();
        return doWork();
    }

    /**
     * A poller armed its CQ and is about to wait for the event: the engine thread stops leaving the
     * cycles to polling threads and waits in {@code select} for the sockets (application-driven mode).
     * Any thread's next poll or post takes the engine again.
     */
    @Override
    public void handBack() {
        if (config.applicationDriven()) {
            lastAppCycle = System.nanoTime() - appIdle;
            wake();
        }
    }

    /**
     * Runs duty cycles while it can take the engine. Another thread's post may ring a doorbell after
     * this cycle drained the doorbells and before it lets go of the engine; that thread's own attempt
     * to run the cycle then fails, so the doorbells are looked at again once the engine is free (a
     * few rounds at most: whoever holds the engine then sees them).
     */
    @Override
    public int doWork() {
        return doWork(null);
    }

    /** {@link #doWork()}; the first cycle, if this thread runs it, is the own cycle of a post to {@code post}. */
    private int doWork(io.jrdma.internal.engine.Doorbell<Schedulable> post) {
        int work = 0;
        for (int round = 0; round < MAX_ROUNDS && holder.tryHold(); round++) {
            work += dutyCycle(round == 0 ? post : null);
            if (doorbells.isEmpty()) {
                break;
            }
        }
        if (passiveSpin > 0 && work > 0) {
            AgentRunner r = runner;
            if (r != null && r.isAgentThread()) {
                lastEngineWork = System.nanoTime();
            }
        }
        return work;
    }

    private int dutyCycle(io.jrdma.internal.engine.Doorbell<Schedulable> post) {
        posting = post;
        try {
            int work = holder.runCommands();
            if (heldCount > 0) {
                for (int i = 0; i < heldCount; i++) {
                    doorbells.ringQuietly(held[i]);
                    held[i] = null;
                }
                heldCount = 0;
                anyHeld = false;
            }
            for (int i = 0; i < 256; i++) {
                Schedulable s = doorbells.poll();
                if (s == null) {
                    break;
                }
                work += 1 + s.onDoorbell();
            }
            if (post == null && pollDirectly()) {
                for (int i = 0; i < pollableCount; i++) {
                    work += ((Schedulable) pollable[i].attachment()).onReadable();
                }
                work += timers.poll();
                return work;
            }
            // What waits for a select runs after this one only if it was queued before it started: keys
            // cancelled while the select handles the ready keys are deregistered by the next one.
            int waiting = afterSelect.size();
            try {
                if (selecting) {
                    selector.wakeup(); // the engine thread waits in select; it holds the selector until woken
                }
                work += selector.selectNow(onKey);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "[" + name + "] select failed", e);
            }
            for (int i = 0; i < waiting; i++) {
                Runnable a = afterSelect.poll();
                try {
                    a.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "[" + name + "] engine command failed", e);
                }
                work++;
            }
            work += timers.poll();
            return work;
        } finally {
            posting = null;
            holder.release();
        }
    }

    /** Whether this cycle reads its QPs' sockets instead of selecting ({@link #DIRECT_POLL_QPS}; owner only). */
    private boolean pollDirectly() {
        if (pollableCount == 0 || pollableCount > DIRECT_POLL_QPS || !config.applicationDriven()
                || (++pollCycles & 15) == 0 || !afterSelect.isEmpty()) {
            return false;
        }
        AgentRunner r = runner;
        if (r != null && r.isAgentThread()) {
            return false;
        }
        for (int i = 0; i < pollableCount; i++) {
            SelectionKey k = pollable[i];
            if (!k.isValid() || (k.interestOps() & SelectionKey.OP_WRITE) != 0) {
                return false;
            }
        }
        return true;
    }

    /** A QP attached its socket under {@code key} (engine owner only). */
    public void addPollable(SelectionKey key) {
        if (pollableCount == pollable.length) {
            pollable = java.util.Arrays.copyOf(pollable, pollableCount * 2);
        }
        pollable[pollableCount++] = key;
    }

    /** The QP of {@code key} let its socket go (engine owner only). */
    public void removePollable(SelectionKey key) {
        for (int i = 0; i < pollableCount; i++) {
            if (pollable[i] == key) {
                pollable[i] = pollable[--pollableCount];
                pollable[pollableCount] = null;
                return;
            }
        }
    }

    private void onKey(SelectionKey key) {
        Schedulable s = (Schedulable) key.attachment();
        if (!key.isValid()) {
            return;
        }
        int ready = key.readyOps();
        if ((ready & READABLE_OPS) != 0) {
            s.onReadable();
        }
        if (key.isValid() && (ready & WRITABLE_OPS) != 0) {
            s.onWritable();
        }
    }

    /**
     * Whether the engine thread should run another cycle instead of parking. In application-driven
     * mode, not while an application thread runs the engine: the doorbells it is about to serve would
     * keep the engine thread spinning on a CAS it cannot win, taking a CPU from the threads that drive
     * the QPs (on 2 cores, a third of the samples of a bandwidth run). The owner serves doorbells rung
     * meanwhile before it lets go ({@link #doWork()}).
     */
    @Override
    public boolean hasPendingWork() {
        if (config.applicationDriven() && holder.isHeld()) {
            return false;
        }
        return !doorbells.isEmpty() || holder.hasCommands() || !afterSelect.isEmpty() || timers.nanosToNext() == 0;
    }

    @Override
    public void park(long nanos) {
        long n = Math.min(nanos, Math.max(1, timers.nanosToNext()));
        if (config.applicationDriven()) {
            long now = System.nanoTime();
            if (now - lastAppCycle < appIdle) {
                LockSupport.parkNanos(this, n); // polling threads run the cycles; stay out of their way
                return;
            }
            if (passiveSpin > 0 && now - lastEngineWork < passiveSpin) {
                Thread.onSpinWait(); // nobody drives this engine and traffic flows: poll again at once
                return;
            }
            selecting = true; // then read lastAppCycle: a poller writes it, then reads selecting (Dekker)
            try {
                if (System.nanoTime() - lastAppCycle < appIdle || anyHeld) {
                    LockSupport.parkNanos(this, n); // a poller came back; it may not have seen selecting
                } else if (!hasPendingWork()) {
                    selector.select(IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(n)));
                }
            } catch (IOException e) {
                LockSupport.parkNanos(this, n);
            } finally {
                selecting = false;
            }
            return;
        }
        try {
            // Only waits: the next duty cycle's selectNow(consumer) sees the ready keys again. The consumer
            // form, as select(long) adds every ready key to the selected-key set (a HashMap node each).
            selector.select(IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(n)));
        } catch (IOException e) {
            LockSupport.parkNanos(this, n);
        }
    }

    /** Whether the engine thread waits in {@code select} right now (application-driven mode; tests). */
    boolean selecting() {
        return selecting;
    }

    @Override
    public void unpark(Thread thread) {
        if (config.applicationDriven() && !selecting) {
            LockSupport.unpark(thread);
        } else {
            selector.wakeup();
        }
    }

    @Override
    public String roleName() {
        return "siw-" + name;
    }
}
