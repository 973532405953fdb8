package io.jrdma.tools.stats;

import io.jrdma.verbs.Counters;
import java.util.List;

/**
 * Where {@code jrdma stats} reads counters: the devices of this JVM, or those of another JVM over JMX
 * (the {@code io.jrdma:type=Device,name=*} MBeans).
 */
interface CounterSource extends AutoCloseable {
    /**
     * The device snapshots, in device order; only {@code names} when it is not empty.
     *
     * @param names device names to show, or empty for all
     * @return the snapshots
     */
    List<Counters> devices(List<String> names);

    /**
     * The live QPs of a device, one {@code rdma statistic} line each.
     *
     * @param device the device
     * @return the lines
     */
    List<String> qpLines(String device);

    /** Releases the connection, if any. */
    @Override
    void close();
}
