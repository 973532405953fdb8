package io.jrdma.internal.verbs;

import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The port state of devices bound to host interfaces (siw, rxe): Linux learns a netdev's carrier changes
 * from the netdev notifier and reports {@code IB_EVENT_PORT_ERR} / {@code IB_EVENT_PORT_ACTIVE}; the JDK
 * has no such notification, so one daemon thread polls {@link NetworkInterface#isUp()} of the interfaces
 * carrying each watched device's addresses every {@value #POLL_PROPERTY} milliseconds (default
 * {@value #DEFAULT_POLL_MILLIS}). A device is watched while it has an open context. A port is up while
 * at least one interface carrying one of its addresses is up (siw0 serves every host address by
 * default); an address no interface carries any more counts as down.
 */
final class LinkWatcher {
    /** System property: the poll period in milliseconds. */
    static final String POLL_PROPERTY = "jrdma.link.pollMillis";
    /** The default poll period. */
    static final long DEFAULT_POLL_MILLIS = 1000;

    private static final Set<DeviceImpl> WATCHED = ConcurrentHashMap.newKeySet();
    private static ScheduledExecutorService timer;

    private LinkWatcher() {
    }

    /** Starts watching {@code d} (idempotent). */
    static synchronized void watch(DeviceImpl d) {
        if (!WATCHED.add(d) || timer != null) {
            return;
        }
        long period = Math.max(10, Long.getLong(POLL_PROPERTY, DEFAULT_POLL_MILLIS));
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jrdma-link-watcher");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(LinkWatcher::pollAll, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops watching {@code d}; the thread ends with the last device. */
    static synchronized void unwatch(DeviceImpl d) {
        WATCHED.remove(d);
        if (WATCHED.isEmpty() && timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    private static void pollAll() {
        for (DeviceImpl d : WATCHED) {
            d.linkState(isUp(d.addresses()));
        }
    }

    /**
     * Whether any host interface that carries one of {@code addresses} (the address itself, or a prefix
     * containing it, as 127.0.0.0/8 contains 127.0.0.5) is up. No addresses: up.
     */
    static boolean isUp(List<InetAddress> addresses) {
        if (addresses.isEmpty()) {
            return true;
        }
        List<NetworkInterface> all;
        try {
            all = Collections.list(NetworkInterface.getNetworkInterfaces());
        } catch (SocketException e) {
            return true; // cannot tell: leave the port as it is rather than report a false PORT_ERR
        }
        for (InetAddress a : addresses) {
            for (NetworkInterface ni : all) {
                if (carries(ni, a)) {
                    try {
                        if (ni.isUp()) {
                            return true;
                        }
                    } catch (SocketException e) {
                        // the interface went away between the listing and the query: not up
                    }
                }
            }
        }
        return false;
    }

    private static boolean carries(NetworkInterface ni, InetAddress a) {
        for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
            InetAddress own = ia.getAddress();
            if (own.equals(a)) {
                return true;
            }
            byte[] x = own.getAddress();
            byte[] y = a.getAddress();
            int bits = ia.getNetworkPrefixLength();
            if (x.length != y.length || bits <= 0 || !own.isLoopbackAddress()) {
                continue; // a prefix only vouches for addresses on loopback (127.0.0.0/8 is all local)
            }
            if (samePrefix(x, y, bits)) {
                return true;
            }
        }
        return false;
    }

    private static boolean samePrefix(byte[] x, byte[] y, int bits) {
        int full = bits / 8;
        for (int i = 0; i < full && i < x.length; i++) {
            if (x[i] != y[i]) {
                return false;
            }
        }
        int rest = bits % 8;
        if (rest == 0 || full >= x.length) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (x[full] & mask) == (y[full] & mask);
    }
}
