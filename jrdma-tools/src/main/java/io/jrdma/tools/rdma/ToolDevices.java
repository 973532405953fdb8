package io.jrdma.tools.rdma;

import java.util.ArrayList;
import java.util.List;

import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;

/**
 * How the tools pick a device: {@code -d NAME} restricts the connection manager to that device;
 * without it the connection manager chooses by address as rdma_cm does, taking the first device (in
 * {@link Rdma#devices()} order: iWARP, then RoCE, then the in-process loop) that serves it.
 */
public final class ToolDevices {

    private ToolDevices() {
    }

    /**
     * Opens a connection manager for a {@code -d} choice.
     *
     * @param device the device name, or null for rdma_cm's choice by address
     * @return the connection manager
     * @throws ToolFailure with {@link ExitCodes#USAGE} when no device has that name
     */
    public static RdmaCm openCm(String device) {
        if (device == null) {
            return RdmaCm.open();
        }
        require(device);
        return RdmaCm.open(device);
    }

    /**
     * Checks that a device exists.
     *
     * @param device the name
     * @return the device
     * @throws ToolFailure with {@link ExitCodes#USAGE} when no device has that name
     */
    public static Device require(String device) {
        for (Device d : Rdma.devices()) {
            if (d.name().equals(device)) {
                return d;
            }
        }
        throw new ToolFailure("IB device " + device + " not found (devices: " + String.join(", ", names()) + ")",
                ExitCodes.USAGE, null);
    }

    /**
     * The names of every device, in rdma_cm's preference order.
     *
     * @return the names
     */
    public static List<String> names() {
        List<String> n = new ArrayList<>();
        for (Device d : Rdma.devices()) {
            n.add(d.name());
        }
        return n;
    }
}
