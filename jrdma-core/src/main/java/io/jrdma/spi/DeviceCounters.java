package io.jrdma.spi;

import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counters of one device, gathered from where they are written: each live QP's
 * {@link CounterSet} (its engine writes it), the device-level sets of the engines
 * ({@link #newEngineSet()}: packets no QP claims, ICRC failures, CM datagrams received on the engine),
 * the {@link #shared()} set of the control plane, and the totals of QPs already destroyed. A snapshot
 * adds them up; nothing on the data path writes anywhere but its own set.
 *
 * <p>The provider device creates it with the counters its transport keeps and returns it from
 * {@link ProviderDevice#deviceCounters()}; its engines write sets taken from {@link #newEngineSet()}, its
 * control plane writes {@link #shared()}. Core registers and retires each QP's set
 * ({@link #qpCreated}, {@link #qpDestroyed}) and reads the totals for {@code Context.queryCounters},
 * JMX and the tools; a provider never calls the QP methods itself.
 */
public final class DeviceCounters {
    /** How many destroyed QPs' final counters are kept for {@link #destroyedSince}. */
    static final int RECENT_LIMIT = 256;

    private final String device;
    private final List<Counter> kept;
    private final List<Counter> keptPerQp;
    private final SharedCounterSet shared = new SharedCounterSet();
    private final List<CounterSet> engineSets = new ArrayList<>();
    private final Map<Integer, CounterSet> live = new TreeMap<>();
    private final long[] retired = new long[CounterSet.SIZE];
    private final ArrayDeque<Counters> recent = new ArrayDeque<>();

    /**
     * The counters of {@code device}.
     *
     * @param device the device name
     * @param kept the counters the device's transport keeps (shown even when zero)
     * @throws IllegalArgumentException if the name is null or blank, or {@code kept} is null
     */
    public DeviceCounters(String device, Collection<Counter> kept) {
        if (device == null || device.isBlank()) {
            throw new IllegalArgumentException("the device counters need the device's name, got " + device);
        }
        if (kept == null) {
            throw new IllegalArgumentException("kept must not be null (List.of() keeps none)");
        }
        this.device = device;
        EnumSet<Counter> k = kept.isEmpty() ? EnumSet.noneOf(Counter.class) : EnumSet.copyOf(kept);
        this.kept = List.copyOf(k);
        List<Counter> q = new ArrayList<>();
        for (Counter c : k) {
            if (c.perQp()) {
                q.add(c);
            }
        }
        this.keptPerQp = List.copyOf(q);
    }

    /**
     * The device name.
     *
     * @return the name
     */
    public String device() {
        return device;
    }

    /**
     * The counters the device keeps, in {@link Counter} order.
     *
     * @return the counters
     */
    public List<Counter> kept() {
        return kept;
    }

    /**
     * The set any control-plane thread may write (atomic adds).
     *
     * @return the shared set
     */
    public SharedCounterSet shared() {
        return shared;
    }

    /**
     * A new single-writer set for device-level counters, for one engine thread to own.
     *
     * @return the set, already part of the device's totals
     */
    public synchronized CounterSet newEngineSet() {
        CounterSet s = new CounterSet();
        engineSets.add(s);
        return s;
    }

    /**
     * A QP was created: its counters join the device's. Core calls it for every QP it creates.
     *
     * @param qpn the QP number
     * @param s the QP's counters
     * @throws IllegalArgumentException if {@code s} is null
     */
    public synchronized void qpCreated(int qpn, CounterSet s) {
        if (s == null) {
            throw new IllegalArgumentException("a QP's counters must not be null");
        }
        live.put(qpn, s);
    }

    /**
     * A QP was destroyed and no engine writes its counters any more: they become part of the retired
     * totals, and its final snapshot is kept for a while. Core calls it for every QP it destroys; a set
     * that is not the live one of {@code qpn} is ignored.
     *
     * @param qpn the QP number
     * @param s the QP's counters
     */
    public synchronized void qpDestroyed(int qpn, CounterSet s) {
        if (live.get(qpn) != s) {
            return;
        }
        live.remove(qpn);
        s.addTo(retired);
        if (recent.size() == RECENT_LIMIT) {
            recent.removeFirst();
        }
        recent.addLast(qpSnapshot(qpn, s));
    }

    /**
     * The device's totals now.
     *
     * @return the snapshot
     */
    public Counters snapshot() {
        long[] sum = sum();
        long now = System.nanoTime();
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.all()) {
            long v = sum[c.ordinal()];
            if (v != 0 || kept.contains(c)) {
                m.put(c.linuxName(), v);
            }
        }
        return new Counters(device, Counters.DEVICE, now, m);
    }

    /**
     * One counter's device total.
     *
     * @param c the counter
     * @return its value
     */
    public long get(Counter c) {
        return sum()[c.ordinal()];
    }

    private synchronized long[] sum() {
        long[] sum = retired.clone();
        shared.addTo(sum);
        for (CounterSet s : engineSets) {
            s.addTo(sum);
        }
        for (CounterSet s : live.values()) {
            s.addTo(sum);
        }
        return sum;
    }

    /**
     * A snapshot of one QP's counters: the per-QP counters the device keeps, and any other that is not
     * zero.
     *
     * @param qpn the QP number
     * @param s its counters
     * @return the snapshot
     */
    public Counters qpSnapshot(int qpn, CounterSet s) {
        long now = System.nanoTime();
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.all()) {
            long v = s.get(c);
            if (v != 0 || keptPerQp.contains(c)) {
                m.put(c.linuxName(), v);
            }
        }
        return new Counters(device, qpn, now, m);
    }

    /**
     * The counters of every live QP, by QP number.
     *
     * @return the snapshots
     */
    public synchronized List<Counters> liveQps() {
        List<Counters> l = new ArrayList<>();
        for (Map.Entry<Integer, CounterSet> e : live.entrySet()) {
            l.add(qpSnapshot(e.getKey(), e.getValue()));
        }
        return l;
    }

    /**
     * How many QPs are live.
     *
     * @return the count
     */
    public synchronized int liveQpCount() {
        return live.size();
    }

    /**
     * The final counters of the QPs destroyed at or after {@code nanoTime} (the last
     * {@value #RECENT_LIMIT} at most), oldest first.
     *
     * @param nanoTime a {@link System#nanoTime()} value
     * @return the snapshots, each stamped with its QP's destruction
     */
    public synchronized List<Counters> destroyedSince(long nanoTime) {
        List<Counters> l = new ArrayList<>();
        for (Counters c : recent) {
            if (c.nanoTime() - nanoTime >= 0) {
                l.add(c);
            }
        }
        return l;
    }

    /** The device's non-zero totals, e.g. {@code rxe0: sent_pkts=12 rcvd_pkts=12}. */
    @Override
    public String toString() {
        return snapshot().toString();
    }
}
