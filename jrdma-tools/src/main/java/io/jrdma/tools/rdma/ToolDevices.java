package io.jrdma.tools.rdma;

import java.util.ArrayList;
import java.util.List;

import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.ExitCodes;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;

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
     * Opens a connection manager for a UD tool ({@code udaddy}): the named device, or without a name every
     * device that carries UD (iWARP carries RC only), so that rdma_cm's choice by address cannot land on
     * siw0.
     *
     * @param device the device name, or null
     * @return the connection manager
     * @throws ToolFailure with {@link ExitCodes#USAGE} when no device carries UD
     */
    public static RdmaCm openUdCm(String device) {
        if (device != null) {
            return openCm(device);
        }
        List<String> ud = udDevices();
        if (ud.isEmpty()) {
            throw new ToolFailure("no device here carries UD (" + String.join(", ", names()) + " are iWARP, RC only): "
                    + "give --device with an rxe device (" + RxeEnv.ENV + "=rxe0:ADDR) or loop0", ExitCodes.USAGE,
                    null);
        }
        return RdmaCm.open(ud.toArray(String[]::new));
    }

    /**
     * The devices that carry UD, in rdma_cm's preference order.
     *
     * @return the names (RoCE and loop devices)
     */
    public static List<String> udDevices() {
        List<String> n = new ArrayList<>();
        for (Device d : Rdma.devices()) {
            if (d.transport() != TransportType.IWARP) {
                n.add(d.name());
            }
        }
        return n;
    }

    /**
     * Checks that a device exists.
     *
     * @param device the name
     * @return the device
     * @throws ToolFailure with {@link ExitCodes#USAGE} when no device has that name
     */
    public static Device require(String device) {
        try {
            return Rdma.device(device);
        } catch (io.jrdma.verbs.RdmaException e) {
            // not found: the message below names what there is
        }
        // Where a device of that kind comes from first, then why kernel devices are not there.
        String hint = "";
        if (device.startsWith("rxe")) {
            String rxe = System.getProperty(RxeEnv.PROPERTY);
            hint = rxe == null ? "; rxe devices come from " + RxeEnv.ENV + ", e.g. " + RxeEnv.ENV + "=" + device
                    + ":192.0.2.1" : "; " + RxeEnv.PROPERTY + " is " + rxe
                    + " (a device is missing when it cannot bind UDP 4791 on its address)";
        }
        String nativeReason = Rdma.unavailableProviders().get("native");
        if (nativeReason != null) {
            hint += "; the native provider (kernel devices, native:NAME) is unavailable: " + nativeReason;
        }
        throw new ToolFailure("IB device " + device + " not found (devices: " + String.join(", ", names()) + ")"
                + hint, ExitCodes.USAGE, null);
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
