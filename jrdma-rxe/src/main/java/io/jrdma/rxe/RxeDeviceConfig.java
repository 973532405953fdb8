package io.jrdma.rxe;

import io.jrdma.verbs.DeviceConfig;
import io.jrdma.verbs.Mtu;
import java.net.InetAddress;
import java.util.Objects;

/**
 * The typed configuration of an rxe device a program opens itself ({@code Rdma.open}): its name, the
 * IP address whose UDP port it binds, and rxe's settings. Start from {@link #named}, whose defaults
 * are the {@code jrdma.rxe.*} system properties ({@link RxeConfig}), and change a copy with the
 * {@code with} methods:
 *
 * <pre>{@code
 * try (OwnedDevice rxe7 = Rdma.open(RxeDeviceConfig.named("rxe7", InetAddress.getByName("10.0.0.7"))
 *         .withMtu(Mtu.MTU_4096))) {
 *     ...
 * }
 * }</pre>
 *
 * The device has an engine thread of its own, stopped when it is closed. Immutable. Linux:
 * {@code rdma link add rxe7 type rxe netdev DEV} and rxe's module parameters.
 *
 * @param name the device's name
 * @param address the IP address it serves (its GID 0); its UDP socket binds there
 * @param mtu the active MTU of its port
 * @param udpPort the UDP port it binds and reaches peers on (4791)
 * @param checkIcrc whether received ICRCs are checked
 * @param packetLifeTime the IB CM packet life time (IB time exponent)
 * @param busySpin whether its engine spins instead of backing off
 */
public record RxeDeviceConfig(String name, InetAddress address, Mtu mtu, int udpPort, boolean checkIcrc,
        int packetLifeTime, boolean busySpin) implements DeviceConfig {
    /** Checks the values (as {@link RxeConfig} does). */
    public RxeDeviceConfig {
        new RxeConfig.DeviceSpec(name, address, io.jrdma.rxe.net.FaultInjector.Settings.NONE);
        new RxeConfig(java.util.List.of(), Objects.requireNonNull(mtu, "mtu"), udpPort, checkIcrc, packetLifeTime,
                busySpin, 1);
    }

    /** A device called {@code name} on {@code address}, with the settings of the system properties. */
    public static RxeDeviceConfig named(String name, InetAddress address) {
        RxeConfig p = RxeConfig.fromSystemProperties();
        return new RxeDeviceConfig(name, address, p.mtu(), p.udpPort(), p.checkIcrc(), p.packetLifeTime(),
                p.busySpin());
    }

    @Override
    public String provider() {
        return RxeProvider.NAME;
    }

    /** This configuration with the active MTU {@code m}. */
    public RxeDeviceConfig withMtu(Mtu m) {
        return new RxeDeviceConfig(name, address, m, udpPort, checkIcrc, packetLifeTime, busySpin);
    }

    /** This configuration on UDP port {@code port}. */
    public RxeDeviceConfig withUdpPort(int port) {
        return new RxeDeviceConfig(name, address, mtu, port, checkIcrc, packetLifeTime, busySpin);
    }

    /** This configuration checking received ICRCs or not. */
    public RxeDeviceConfig withIcrcCheck(boolean check) {
        return new RxeDeviceConfig(name, address, mtu, udpPort, check, packetLifeTime, busySpin);
    }

    /** This configuration with the IB CM packet life time {@code exponent}. */
    public RxeDeviceConfig withPacketLifeTime(int exponent) {
        return new RxeDeviceConfig(name, address, mtu, udpPort, checkIcrc, exponent, busySpin);
    }

    /** This configuration with a spinning engine, or a backing-off one. */
    public RxeDeviceConfig withBusySpin(boolean spin) {
        return new RxeDeviceConfig(name, address, mtu, udpPort, checkIcrc, packetLifeTime, spin);
    }
}
