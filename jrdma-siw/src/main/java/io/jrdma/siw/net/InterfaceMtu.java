package io.jrdma.siw.net;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MTU of the interface that holds a local address, read at most once per {@link #TTL_NANOS}
 * per address. siw cuts FPDUs to the path MSS when a QP attaches to its socket (Linux reads the
 * socket's {@code mss_cache}; Java has no TCP_MAXSEG, so jrdma derives the MSS from the interface
 * MTU). {@link NetworkInterface#getByInetAddress} enumerates every interface of the host: 25-50 us
 * here, paid twice per connection on the engine threads, about a sixth of a whole sequential siw
 * connection setup before this cache. An MTU change reaches new connections within the TTL.
 */
public final class InterfaceMtu {
    /** How long a read MTU is used: one second. */
    static final long TTL_NANOS = 1_000_000_000L;
    /** Entries kept at most; the cache starts over beyond (addresses are few in practice). */
    static final int MAX_ENTRIES = 256;

    private record Entry(int mtu, long readAt) {
    }

    private static final ConcurrentHashMap<InetAddress, Entry> CACHE = new ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicLong READS = new java.util.concurrent.atomic.AtomicLong();

    private InterfaceMtu() {
    }

    /**
     * The MTU of the interface holding {@code local}, or {@code -1} if no interface holds it or the
     * system does not say.
     */
    public static int of(InetAddress local) {
        long now = System.nanoTime();
        Entry e = CACHE.get(local);
        if (e != null && now - e.readAt() < TTL_NANOS) {
            return e.mtu();
        }
        int mtu = read(local);
        if (CACHE.size() >= MAX_ENTRIES) {
            CACHE.clear();
        }
        CACHE.put(local, new Entry(mtu, now));
        return mtu;
    }

    /** Interface lookups done so far (tests). */
    static long reads() {
        return READS.get();
    }

    private static int read(InetAddress local) {
        READS.incrementAndGet();
        try {
            NetworkInterface ni = NetworkInterface.getByInetAddress(local);
            return ni == null ? -1 : ni.getMTU();
        } catch (SocketException e) {
            return -1;
        }
    }
}
