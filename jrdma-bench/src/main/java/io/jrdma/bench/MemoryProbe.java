package io.jrdma.bench;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The JVM's live memory: the live heap as the HotSpot class histogram counts it after a full
 * collection (the {@code GC.class_histogram} diagnostic command through its MXBean, without the
 * collector's filler objects), plus the direct and mapped buffer pools ({@link BufferPoolMXBean};
 * native memory segments from an {@link java.lang.foreign.Arena} are counted in the direct pool too).
 *
 * <p>The histogram, not {@code MemoryMXBean.getHeapMemoryUsage()}: the latter includes unused
 * space the collector filled with dummy objects and moved several MiB between two snapshots of an
 * idle JVM here, which is more than the whole budget of a few hundred QPs.
 *
 * @param heap live heap bytes
 * @param direct bytes of the direct and mapped buffer pools
 */
record MemoryProbe(long heap, long direct) {
    /** The class the collector fills unused heap with; not live data. */
    private static final String FILLER = "jdk.internal.vm.FillerElement";

    /** The total. */
    long total() {
        return heap + direct;
    }

    /** This snapshot minus {@code before}. */
    MemoryProbe minus(MemoryProbe before) {
        return new MemoryProbe(heap - before.heap, direct - before.direct);
    }

    /** A snapshot (runs full collections). */
    static MemoryProbe snapshot() throws InterruptedException {
        // A first collection lets the cleaners of unreachable direct buffers run before counting.
        ManagementFactory.getMemoryMXBean().gc();
        Thread.sleep(50);
        long heap = liveHeap(histogram());
        long direct = 0;
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += p.getMemoryUsed();
        }
        return new MemoryProbe(heap, direct);
    }

    /** The class histogram of live objects (runs a full collection). */
    static String histogram() {
        try {
            MBeanServer s = ManagementFactory.getPlatformMBeanServer();
            ObjectName n = new ObjectName("com.sun.management:type=DiagnosticCommand");
            return (String) s.invoke(n, "gcClassHistogram", new Object[] {null},
                    new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IllegalStateException("the class histogram is not available: " + e, e);
        }
    }

    /** Total bytes of a histogram, without filler objects. */
    static long liveHeap(String histogram) {
        long total = -1;
        long filler = 0;
        for (String line : histogram.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals("Total")) {
                total = Long.parseLong(f[2]);
            } else if (f.length >= 4 && f[3].contains(FILLER)) {
                filler += Long.parseLong(f[2]);
            }
        }
        if (total < 0) {
            throw new IllegalStateException("no total in the class histogram");
        }
        return total - filler;
    }

    /** The {@code top} classes that grew most from histogram {@code a} to {@code b}, per {@code per} QPs. */
    static String growth(String a, String b, int per, int top) {
        Map<String, long[]> m = new HashMap<>();
        for (int k = 0; k < 2; k++) {
            for (String line : (k == 0 ? a : b).split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && f[0].endsWith(":")) {
                    long[] v = m.computeIfAbsent(f[3], x -> new long[4]);
                    v[k] += Long.parseLong(f[2]);
                    v[k + 2] += Long.parseLong(f[1]);
                }
            }
        }
        List<Map.Entry<String, long[]>> l = new ArrayList<>(m.entrySet());
        l.sort((x, y) -> Long.compare(y.getValue()[1] - y.getValue()[0], x.getValue()[1] - x.getValue()[0]));
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, long[]> e : l.subList(0, Math.min(top, l.size()))) {
            long[] v = e.getValue();
            sb.append(String.format(Locale.ROOT, "%8.1f B/QP %6.2f objects/QP %s%n", (v[1] - v[0]) / (double) per,
                    (v[3] - v[2]) / (double) per, e.getKey()));
        }
        return sb.toString();
    }
}
