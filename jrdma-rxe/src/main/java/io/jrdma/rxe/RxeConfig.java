package io.jrdma.rxe;

import io.jrdma.rxe.net.FaultInjector;
import io.jrdma.verbs.Mtu;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * The rxe provider's configuration, read from system properties (the counterpart of
 * {@code rdma link add rxe0 type rxe netdev eth0} plus rxe's module parameters):
 * <ul>
 *   <li>{@code jrdma.rxe.devices}: comma-separated {@code name:address} pairs, e.g.
 *       {@code rxe0:127.0.0.1,rxe1:127.0.0.2} or {@code rxe6:[::1]}. <b>Default: none.</b> The provider
 *       binds UDP port 4791 on each address when the device registry loads, so it offers no device
 *       unless asked to; and iWARP and the loop provider keep the loopback addresses they serve.</li>
 *   <li>{@code jrdma.rxe.mtu}: the active MTU of every device's port in bytes, 256..4096 (default
 *       1024, what rxe derives from a 1500-byte netdev: {@code eth_mtu_int_to_enum}).</li>
 *   <li>{@code jrdma.rxe.port}: the UDP port (default 4791, IANA RoCEv2); peers are reached on it too.</li>
 *   <li>{@code jrdma.rxe.icrc}: {@code check} (default; the IPv4 identification is solved, see
 *       {@link io.jrdma.internal.roce.Icrc}) or {@code skip} on receive. Sending always seals the ICRC.</li>
 *   <li>{@code jrdma.rxe.packetLifeTime}: the packet life time the IB CM uses (IB time exponent;
 *       default 18, rdma_cm's {@code CMA_IBOE_PACKET_LIFETIME}).</li>
 *   <li>{@code jrdma.rxe.idle}: the engines' idle strategy, {@code backoff} (default) or {@code spin}.</li>
 *   <li>{@code jrdma.rxe.appDriven}: {@code true} (default) lets the thread that posts a work request,
 *       and the thread that polls an empty CQ, run the engine's duty cycle when nobody else does (a thread
 *       that arms a CQ hands it back to the engine's thread); {@code false} leaves all I/O to the engine
 *       threads (read by {@link io.jrdma.rxe.net.RxeEngine}).</li>
 *   <li>{@code jrdma.rxe.engines}: the engine threads the devices are spread over, round robin in
 *       the order of {@code jrdma.rxe.devices}, 1..{@value io.jrdma.rxe.net.RxeEngine#MAX_SHARED}
 *       (default 1: one thread serves every device). A device's socket, QPs and timers stay
 *       on its engine; several engines pay off only with several devices carrying traffic at once (two
 *       devices of one JVM talking to each other, as the benchmark's rxe0 and rxe1).</li>
 *   <li>{@code jrdma.rxe.faults} (every device) and {@code jrdma.rxe.faults.<name>} (one device): a
 *       fault injector for outgoing data packets, e.g. {@code loss=0.05,dup=0.01,reorder=0.02,seed=7};
 *       off by default ({@link FaultInjector.Settings#parse}).</li>
 *   <li>{@code jrdma.rxe.maxQp}, {@code jrdma.rxe.maxMr}: lower the device's {@code max_qp} and
 *       {@code max_mr} below rxe's {@code RXE_MAX_QP}/{@code RXE_MAX_MR} (read by {@link RxeDevice}; for
 *       tests that reach the limits).</li>
 * </ul>
 *
 * @param devices the devices
 * @param mtu the active MTU of every port
 * @param udpPort the UDP port
 * @param checkIcrc whether received ICRCs are checked
 * @param packetLifeTime the IB CM packet life time exponent
 * @param busySpin whether the engines spin instead of backing off
 * @param engines the engine threads the devices are spread over
 */
public record RxeConfig(List<DeviceSpec> devices, Mtu mtu, int udpPort, boolean checkIcrc, int packetLifeTime,
        boolean busySpin, int engines) {
    /** The IANA RoCEv2 UDP port. */
    public static final int ROCE_V2_PORT = 4791;
    /** rdma_cm's {@code CMA_IBOE_PACKET_LIFETIME}. */
    public static final int DEFAULT_PACKET_LIFE_TIME = 18;
    /** The default active MTU: rxe on a 1500-byte Ethernet netdev. */
    public static final Mtu DEFAULT_MTU = Mtu.MTU_1024;

    /**
     * One device.
     *
     * @param name the device name, e.g. {@code rxe0}
     * @param address the IP address it serves (its GID 0)
     * @param faults the fault injector settings of its outgoing data packets
     */
    public record DeviceSpec(String name, InetAddress address, FaultInjector.Settings faults) {
        /** Checks the fields. */
        public DeviceSpec {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(faults, "faults");
            if (name.isBlank()) {
                throw new IllegalArgumentException("an rxe device needs a name");
            }
        }
    }

    /** Checks the values. */
    public RxeConfig {
        devices = List.copyOf(devices);
        Objects.requireNonNull(mtu, "mtu");
        if (udpPort < 1 || udpPort > 0xffff) {
            throw new IllegalArgumentException("UDP port " + udpPort + " outside 1..65535");
        }
        if (packetLifeTime < 0 || packetLifeTime > 31) {
            throw new IllegalArgumentException("packet life time " + packetLifeTime + " is a 5-bit IB time");
        }
        if (engines < 1 || engines > io.jrdma.rxe.net.RxeEngine.MAX_SHARED) {
            throw new IllegalArgumentException("jrdma.rxe.engines " + engines + " outside 1.."
                    + io.jrdma.rxe.net.RxeEngine.MAX_SHARED);
        }
    }

    /**
     * The configuration from the system properties described above.
     *
     * @return the configuration from the system properties described above
     */
    public static RxeConfig fromSystemProperties() {
        return from(System.getProperties());
    }

    private static int integer(Properties p, String key, int otherwise) {
        String v = p.getProperty(key);
        if (v == null) {
            return otherwise;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: " + v, e);
        }
    }

    /**
     * The configuration from {@code p}, with the keys described above.
     *
     * @param p the properties
     * @return the configuration from {@code p}, with the keys described above
     */
    public static RxeConfig from(Properties p) {
        String spec = p.getProperty("jrdma.rxe.devices", "");
        FaultInjector.Settings common = FaultInjector.Settings.parse(p.getProperty("jrdma.rxe.faults", ""));
        List<DeviceSpec> devices = new ArrayList<>();
        for (String item : spec.split(",")) {
            String s = item.strip();
            if (s.isEmpty()) {
                continue;
            }
            int colon = s.indexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new IllegalArgumentException("jrdma.rxe.devices entry '" + s + "' is not name:address");
            }
            String name = s.substring(0, colon);
            String own = p.getProperty("jrdma.rxe.faults." + name);
            devices.add(new DeviceSpec(name, parseAddress(s.substring(colon + 1)),
                    own == null ? common : FaultInjector.Settings.parse(own)));
        }
        int mtuBytes = integer(p, "jrdma.rxe.mtu", DEFAULT_MTU.bytes());
        Mtu mtu = Mtu.atMost(mtuBytes);
        if (mtu.bytes() != mtuBytes) {
            throw new IllegalArgumentException("jrdma.rxe.mtu " + mtuBytes + " is not an IB MTU (256..4096)");
        }
        String icrc = p.getProperty("jrdma.rxe.icrc", "check");
        if (!icrc.equals("check") && !icrc.equals("skip")) {
            throw new IllegalArgumentException("jrdma.rxe.icrc is check or skip, not " + icrc);
        }
        String idle = p.getProperty("jrdma.rxe.idle", "backoff");
        if (!idle.equals("backoff") && !idle.equals("spin")) {
            throw new IllegalArgumentException("jrdma.rxe.idle is backoff or spin, not " + idle);
        }
        return new RxeConfig(devices, mtu, integer(p, "jrdma.rxe.port", ROCE_V2_PORT), icrc.equals("check"),
                integer(p, "jrdma.rxe.packetLifeTime", DEFAULT_PACKET_LIFE_TIME), idle.equals("spin"),
                integer(p, "jrdma.rxe.engines", 1));
    }

    /** Parses {@code 10.0.4.2}, {@code ::1} or {@code [::1]} without name resolution. */
    static InetAddress parseAddress(String text) {
        String t = text.strip();
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        boolean literal = t.indexOf(':') >= 0 || t.chars().allMatch(c -> c == '.' || Character.isDigit(c));
        if (!literal) {
            throw new IllegalArgumentException("rxe device address '" + text + "' is not an IP literal");
        }
        try {
            return InetAddress.getByName(t);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("rxe device address '" + text + "' is not an IP literal", e);
        }
    }
}
