package io.jrdma.tools.stats;

import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import java.util.ArrayList;
import java.util.List;

/** The counters of the devices of this JVM. */
final class LocalCounters implements CounterSource {

    /** Reads this JVM's devices. */
    LocalCounters() {
    }

    static List<Device> select(List<String> names) {
        if (names == null || names.isEmpty()) {
            return Rdma.devices();
        }
        List<Device> out = new ArrayList<>();
        for (String n : names) {
            try {
                out.add(Rdma.device(n));
            } catch (RdmaException e) {
                throw new ToolFailure(e.getMessage(), ExitCodes.USAGE, e);
            }
        }
        return out;
    }

    @Override
    public List<Counters> devices(List<String> names) {
        List<Counters> out = new ArrayList<>();
        for (Device d : select(names)) {
            out.add(d.queryCounters());
        }
        return out;
    }

    @Override
    public List<String> qpLines(String device) {
        List<String> out = new ArrayList<>();
        for (Counters c : Rdma.device(device).queryQpCounters()) {
            out.add(c.toLine());
        }
        return out;
    }

    @Override
    public void close() {
        // nothing to release
    }
}
