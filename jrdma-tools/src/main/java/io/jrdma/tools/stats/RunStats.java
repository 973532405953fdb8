package io.jrdma.tools.stats;

import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code --stats}, which every tool accepts: the device counters when the tool starts, and at its end
 * what changed on each device (devices with no change are left out) and the counters of each QP the run
 * created, the destroyed ones included, in the layout of {@code jrdma stats}.
 */
public final class RunStats {
    private final long start = System.nanoTime();
    private final List<Device> devices = LocalCounters.select(List.of());
    private final List<Counters> before = new ArrayList<>();
    private final Set<String> qpsBefore = new HashSet<>();

    private RunStats() {
        for (Device d : devices) {
            before.add(d.queryCounters());
            for (Counters q : d.queryQpCounters()) {
                qpsBefore.add(q.device() + "/" + q.qpNum());
            }
        }
    }

    /**
     * Takes the baseline.
     *
     * @return the run's statistics
     */
    public static RunStats begin() {
        return new RunStats();
    }

    /**
     * Prints what the run counted.
     *
     * @param out where to print
     */
    public void print(PrintStream out) {
        out.println("--- jrdma --stats: counters of this run ---");
        boolean any = false;
        for (int i = 0; i < devices.size(); i++) {
            Device d = devices.get(i);
            Counters delta = d.queryCounters().minus(before.get(i));
            if (delta.nonZero().isEmpty()) {
                continue;
            }
            any = true;
            out.println(delta.toLine());
            for (Counters q : d.queryDestroyedQpCounters(start)) {
                out.println(q.toLine());
            }
            for (Counters q : d.queryQpCounters()) {
                if (!qpsBefore.contains(q.device() + "/" + q.qpNum())) {
                    out.println(q.toLine());
                }
            }
        }
        if (!any) {
            out.println("(no device counted anything)");
        }
        out.flush();
    }
}
