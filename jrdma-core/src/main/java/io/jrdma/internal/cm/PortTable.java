package io.jrdma.internal.cm;

import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ports bound in each port space of this JVM (rdma_cm's per-port-space IDR, {@code cma_get_port},
 * {@code cma_check_port}, {@code cma_alloc_any_port}). Two ids conflict on a port when their
 * addresses overlap (equal: EADDRINUSE; either is a wildcard: EADDRNOTAVAIL) unless both set
 * REUSEADDR and neither listens, or both are AFONLY and of different address families.
 * Ephemeral ports come at random from Linux's default {@code ip_local_port_range}, 32768..60999, or
 * from the range in the system property {@value #RANGE_PROPERTY} ({@code LOW-HIGH}, read at each
 * bind) — the counterpart of that sysctl, for hosts whose own programs use the same range.
 */
public final class PortTable {
    /** Lowest ephemeral port (Linux's default ip_local_port_range). */
    public static final int EPHEMERAL_LOW = 32768;
    /** Highest ephemeral port. */
    public static final int EPHEMERAL_HIGH = 60999;
    /** System property with another ephemeral range, {@code LOW-HIGH} (like ip_local_port_range). */
    public static final String RANGE_PROPERTY = "jrdma.cm.ephemeralPorts";

    private static final PortTable INSTANCE = new PortTable();

    private final Map<PortSpace, Map<Integer, List<Binding>>> spaces = new EnumMap<>(PortSpace.class);

    /** One id's claim on a port. */
    public static final class Binding {
        final Object owner;
        final InetAddress address;
        final boolean reuseAddr;
        final boolean afOnly;
        boolean listening;

        Binding(Object owner, InetAddress address, boolean reuseAddr, boolean afOnly) {
            this.owner = owner;
            this.address = address;
            this.reuseAddr = reuseAddr;
            this.afOnly = afOnly;
        }
    }

    private PortTable() {
    }

    /** The table of this JVM. */
    public static PortTable instance() {
        return INSTANCE;
    }

    private Map<Integer, List<Binding>> space(PortSpace ps) {
        return spaces.computeIfAbsent(ps, p -> new HashMap<>());
    }

    /**
     * {@code cma_check_port}: whether {@code existing} keeps an id with {@code address} off the port,
     * and with which errno — EADDRNOTAVAIL when they overlap through a wildcard address, EADDRINUSE
     * when the addresses are equal — or {@code null} when they may share it.
     */
    private static Errno conflict(Binding existing, InetAddress address, boolean reuse, boolean afOnly,
            boolean listening) {
        if (existing.reuseAddr && reuse && !existing.listening && !listening) {
            return null;
        }
        boolean sameFamily = (existing.address instanceof Inet6Address) == (address instanceof Inet6Address);
        if (existing.afOnly && afOnly && !sameFamily) {
            return null; // two AFONLY ids of different families never meet
        }
        if (existing.address.isAnyLocalAddress() || address.isAnyLocalAddress()) {
            return Errno.EADDRNOTAVAIL;
        }
        return existing.address.equals(address) ? Errno.EADDRINUSE : null;
    }

    /**
     * Binds {@code owner} to {@code port} (0 = ephemeral) and returns the port.
     *
     * @param afOnly whether the id takes its own address family only (RDMA_OPTION_ID_AFONLY)
     * @throws RdmaException EADDRINUSE when taken, EADDRNOTAVAIL when a wildcard overlaps or no ephemeral
     *     port is free
     */
    public synchronized int bind(PortSpace ps, Object owner, InetAddress address, int port, boolean reuseAddr,
            boolean afOnly) {
        Map<Integer, List<Binding>> s = space(ps);
        if (port == 0) {
            int[] lowHigh = ephemeralRange();
            int range = lowHigh[1] - lowHigh[0] + 1;
            int start = ThreadLocalRandom.current().nextInt(range);
            for (int i = 0; i < range; i++) {
                int p = lowHigh[0] + (start + i) % range;
                List<Binding> l = s.get(p);
                if (l == null || l.isEmpty()) {
                    s.computeIfAbsent(p, k -> new ArrayList<>()).add(new Binding(owner, address, reuseAddr, afOnly));
                    return p;
                }
            }
            throw new RdmaException(Errno.EADDRNOTAVAIL, "no free ephemeral port in " + ps);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " out of range");
        }
        List<Binding> l = s.computeIfAbsent(port, k -> new ArrayList<>());
        for (Binding b : l) {
            Errno e = conflict(b, address, reuseAddr, afOnly, false);
            if (e != null) {
                throw new RdmaException(e, ps + " port " + port + " on " + address.getHostAddress()
                        + " is already bound" + (e == Errno.EADDRNOTAVAIL ? " (overlapping a wildcard address)" : ""));
            }
        }
        l.add(new Binding(owner, address, reuseAddr, afOnly));
        return port;
    }

    /** The ephemeral range in force: {@value #RANGE_PROPERTY} if set (and valid), else Linux's default. */
    static int[] ephemeralRange() {
        String v = System.getProperty(RANGE_PROPERTY);
        if (v == null) {
            return new int[] {EPHEMERAL_LOW, EPHEMERAL_HIGH};
        }
        String[] parts = v.trim().split("\\s*-\\s*");
        try {
            int low = Integer.parseInt(parts[0]);
            int high = parts.length == 2 ? Integer.parseInt(parts[1]) : -1;
            if (parts.length == 2 && low >= 1 && low <= high && high <= 65535) {
                return new int[] {low, high};
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(RANGE_PROPERTY + " must be LOW-HIGH with 1 <= LOW <= HIGH <= 65535: \""
                + v + "\"");
    }

    /** Marks {@code owner}'s binding as listening; fails if another binding now conflicts. */
    public synchronized void listen(PortSpace ps, Object owner, int port) {
        List<Binding> l = space(ps).get(port);
        Binding mine = null;
        if (l != null) {
            for (Binding b : l) {
                if (b.owner == owner) {
                    mine = b;
                }
            }
        }
        if (mine == null) {
            throw new IllegalStateException("not bound to " + ps + " port " + port);
        }
        for (Binding b : l) {
            Errno e = b == mine ? null : conflict(b, mine.address, mine.reuseAddr, mine.afOnly, true);
            if (e != null) {
                throw new RdmaException(e, ps + " port " + port + " is in use by another id");
            }
        }
        mine.listening = true;
    }

    /** Releases {@code owner}'s binding. */
    public synchronized void release(PortSpace ps, Object owner, int port) {
        List<Binding> l = space(ps).get(port);
        if (l != null) {
            l.removeIf(b -> b.owner == owner);
            if (l.isEmpty()) {
                space(ps).remove(port);
            }
        }
    }

    /** The number of bindings on a port (tests). */
    public synchronized int bindings(PortSpace ps, int port) {
        List<Binding> l = space(ps).get(port);
        return l == null ? 0 : l.size();
    }
}
