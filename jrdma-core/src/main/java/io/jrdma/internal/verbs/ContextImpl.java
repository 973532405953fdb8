package io.jrdma.internal.verbs;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.ProtectionDomain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An open device context. Asynchronous events are queued (bounded) for {@link #getAsyncEvent} or,
 * once a handler is set, delivered to it one at a time on a virtual thread, never on an engine
 * thread, so a slow handler cannot stall the data path.
 */
public final class ContextImpl implements Context {
    private static final System.Logger LOG = System.getLogger("io.jrdma.verbs");
    /** Events kept for {@link #getAsyncEvent} before the oldest are dropped (with a log line). */
    static final int ASYNC_QUEUE_LIMIT = 4096;

    private final DeviceImpl device;
    private final AtomicInteger nextPd = new AtomicInteger(1);
    private final LinkedBlockingQueue<AsyncEvent> asyncQueue = new LinkedBlockingQueue<>(ASYNC_QUEUE_LIMIT);
    private volatile Consumer<AsyncEvent> handler;
    private Thread dispatcher;
    private final Set<PdImpl> pds = ConcurrentHashMap.newKeySet();
    private final Set<CqImpl> cqs = ConcurrentHashMap.newKeySet();
    private final Set<CompletionChannelImpl> channels = ConcurrentHashMap.newKeySet();
    private final Set<QpImpl> qps = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    ContextImpl(DeviceImpl device) {
        this.device = device;
    }

    /** The device (internal type). */
    public DeviceImpl deviceImpl() {
        return device;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("device context of " + device.name() + " is closed");
        }
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkOpen();
        return device.attributes();
    }

    @Override
    public PortAttributes queryPort(int port) {
        checkOpen();
        if (port != 1) {
            throw new IllegalArgumentException("port " + port + " does not exist; " + device.name() + " has port 1");
        }
        return device.portAttributes();
    }

    @Override
    public Gid queryGid(int port, int index) {
        checkOpen();
        if (port != 1) {
            throw new IllegalArgumentException("port " + port + " does not exist; " + device.name() + " has port 1");
        }
        List<Gid> gids = device.providerDevice().gids();
        if (index < 0 || index >= device.portAttributes().gidTableLength()) {
            throw new IllegalArgumentException("GID index " + index + " outside 0.."
                    + (device.portAttributes().gidTableLength() - 1));
        }
        return index < gids.size() ? gids.get(index) : Gid.ZERO;
    }

    @Override
    public Counters queryCounters() {
        checkOpen();
        return device.counters().snapshot();
    }

    @Override
    public PacketCapture startCapture(java.nio.file.Path file) {
        checkOpen();
        return device.startCapture(file);
    }

    @Override
    public ProtectionDomain allocPd() {
        checkOpen();
        device.reserve(DeviceImpl.Resource.PD);
        PdImpl pd = new PdImpl(this, nextPd.getAndIncrement());
        pds.add(pd);
        return pd;
    }

    void pdClosed(PdImpl pd) {
        pds.remove(pd);
        device.release(DeviceImpl.Resource.PD);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        CompletionChannelImpl c = new CompletionChannelImpl(this);
        channels.add(c);
        return c;
    }

    void channelClosed(CompletionChannelImpl c) {
        channels.remove(c);
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        checkOpen();
        int max = device.attributes().maxCqe();
        if (cqe < 1 || cqe > max) {
            throw new IllegalArgumentException("cqe " + cqe + " outside 1.." + max);
        }
        CompletionChannelImpl ch = null;
        if (channel != null) {
            if (!(channel instanceof CompletionChannelImpl c) || !channels.contains(c)) {
                throw new IllegalArgumentException("the completion channel belongs to another context");
            }
            ch = c;
        }
        device.reserve(DeviceImpl.Resource.CQ);
        CqImpl cq = new CqImpl(this, cqe, ch);
        if (ch != null) {
            ch.cqs.incrementAndGet();
        }
        cqs.add(cq);
        return cq;
    }

    void cqClosed(CqImpl cq) {
        cqs.remove(cq);
        device.release(DeviceImpl.Resource.CQ);
    }

    void qpCreated(QpImpl qp) {
        qps.add(qp);
    }

    void qpDestroyed(QpImpl qp) {
        qps.remove(qp);
    }

    /** Queues or dispatches an asynchronous event. Any thread; never blocks. */
    public void asyncEvent(AsyncEventType type, QpImpl qp, CqImpl cq, SrqImpl srq, String detail) {
        AsyncEvent e = new AsyncEvent(type, qp, cq, srq, type == AsyncEventType.PORT_ACTIVE
                || type == AsyncEventType.PORT_ERR ? 1 : 0, detail == null ? "" : detail);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "[" + device.name() + "] async event " + e);
        }
        if (!asyncQueue.offer(e)) {
            AsyncEvent dropped = asyncQueue.poll();
            LOG.log(System.Logger.Level.WARNING, "[" + device.name() + "] async event queue full; dropped "
                    + dropped);
            asyncQueue.offer(e);
        }
    }

    @Override
    public synchronized void setAsyncEventHandler(Consumer<AsyncEvent> h) {
        checkOpen();
        this.handler = h;
        if (h != null && dispatcher == null) {
            dispatcher = Thread.ofVirtual().name("jrdma-async-" + device.name()).start(this::dispatch);
        }
    }

    private void dispatch() {
        while (!closed) {
            try {
                Consumer<AsyncEvent> h = handler;
                if (h == null) {
                    synchronized (this) {
                        if (handler == null) {
                            dispatcher = null;
                            return;
                        }
                    }
                    continue;
                }
                AsyncEvent e = asyncQueue.poll(100, TimeUnit.MILLISECONDS);
                if (e != null) {
                    try {
                        h.accept(e);
                    } catch (RuntimeException ex) {
                        LOG.log(System.Logger.Level.WARNING, "[" + device.name() + "] async event handler threw", ex);
                    }
                }
            } catch (InterruptedException ie) {
                return;
            }
        }
    }

    @Override
    public AsyncEvent getAsyncEvent(Duration timeout) throws InterruptedException {
        checkOpen();
        if (handler != null) {
            throw new IllegalStateException("async events go to the handler set with setAsyncEventHandler");
        }
        return asyncQueue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Whether the context is closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        // ibv_close_device: tear down what the application left, in dependency order.
        for (QpImpl qp : new ArrayList<>(qps)) {
            qp.close();
        }
        for (PdImpl pd : new ArrayList<>(pds)) {
            pd.forceClose();
        }
        for (CqImpl cq : new ArrayList<>(cqs)) {
            cq.users.clear();
            cq.close();
        }
        for (CompletionChannelImpl ch : new ArrayList<>(channels)) {
            ch.cqs.set(0);
            ch.close();
        }
        closed = true;
        Thread d = dispatcher;
        if (d != null) {
            d.interrupt();
        }
        device.contextClosed(this);
    }
}
