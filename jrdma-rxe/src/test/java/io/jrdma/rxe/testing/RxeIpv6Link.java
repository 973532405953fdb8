package io.jrdma.rxe.testing;

import io.jrdma.verbs.Rdma;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two unique-local IPv6 addresses for two rxe devices in one JVM (an rxe device serves one address, and
 * IPv6 has one loopback address): a veth pair in this network namespace, both ends up, with {@link #A}
 * and {@link #B} on its first end (no duplicate address detection, so they are usable at once). Traffic
 * between them is local delivery, as between 127.0.0.1 and 127.0.0.2. Devices {@link #DEVICE_A} and
 * {@link #DEVICE_B} serve them; {@link #DEVICE_LA} and {@link #DEVICE_LB} serve the link-local addresses
 * {@link #LINK_LOCAL_A} on the first end and {@link #LINK_LOCAL_B} on the second (their packets cross the
 * veth pair, scoped to the sending end). rxe reads {@code jrdma.rxe.devices} once, when it first opens its devices,
 * so {@link #shared} must run before anything in the JVM touches rxe (a failsafe execution of its own,
 * from the test classes' {@code @BeforeAll}); the pair lives until the JVM exits. Needs root and iproute2.
 */
public final class RxeIpv6Link {
    /** The first device's address. */
    public static final String A = "fd00:6a::1";
    /** The second device's address. */
    public static final String B = "fd00:6a::2";
    /** The link-local address of the first end. */
    public static final String LINK_LOCAL_A = "fe80::6a:1";
    /** The link-local address of the second end. */
    public static final String LINK_LOCAL_B = "fe80::6a:2";
    /** The first end. */
    public static final String LINK = "jrdma6a";
    /** The second end. */
    public static final String PEER = "jrdma6b";
    /** The device on {@link #LINK_LOCAL_A} (scope {@link #LINK}). */
    public static final String DEVICE_LA = "rxe6la";
    /** The device on {@link #LINK_LOCAL_B} (scope {@link #PEER}). */
    public static final String DEVICE_LB = "rxe6lb";
    /** The device on {@link #A}. */
    public static final String DEVICE_A = "rxe6a";
    /** The device on {@link #B}. */
    public static final String DEVICE_B = "rxe6b";
    private static RxeIpv6Link shared;
    private static boolean tried;

    private RxeIpv6Link() {
    }

    /**
     * The JVM's link, made on the first call (which adds {@link #DEVICE_A} and {@link #DEVICE_B} to
     * {@code jrdma.rxe.devices}); null (with the reason on stderr) when not root or the pair cannot be made.
     *
     * @return the link, or null
     */
    public static synchronized RxeIpv6Link shared() {
        if (!tried) {
            tried = true;
            shared = open();
        }
        return shared;
    }

    private static RxeIpv6Link open() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return null;
        }
        RxeIpv6Link link = new RxeIpv6Link();
        link.close(); // a leftover of a killed run
        for (List<String> cmd : List.of(
                List.of("ip", "link", "add", LINK, "type", "veth", "peer", "name", PEER),
                List.of("ip", "link", "set", PEER, "up"),
                List.of("ip", "link", "set", LINK, "up"),
                List.of("ip", "-6", "addr", "add", A + "/128", "dev", LINK, "nodad"),
                List.of("ip", "-6", "addr", "add", B + "/128", "dev", LINK, "nodad"),
                List.of("ip", "-6", "addr", "add", LINK_LOCAL_A + "/64", "dev", LINK, "nodad"),
                List.of("ip", "-6", "addr", "add", LINK_LOCAL_B + "/64", "dev", PEER, "nodad"))) {
            String out = run(cmd);
            if (out != null) {
                System.err.println("no IPv6 link for rxe: " + String.join(" ", cmd) + ": " + out);
                link.close();
                return null;
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(link::close, "rxe-ipv6-link-close"));
        String devices = System.getProperty("jrdma.rxe.devices", "");
        System.setProperty("jrdma.rxe.devices", (devices.isEmpty() ? "" : devices + ",") + DEVICE_A + ":[" + A
                + "]," + DEVICE_B + ":[" + B + "]," + DEVICE_LA + ":[" + LINK_LOCAL_A + "%" + LINK + "]," + DEVICE_LB
                + ":[" + LINK_LOCAL_B + "%" + PEER + "]");
        return link;
    }

    /**
     * Whether {@code link} was made and rxe serves both devices.
     *
     * @param link the link from {@link #shared}, or null
     * @return true if the test can use them
     */
    public static boolean usable(RxeIpv6Link link) {
        if (link == null) {
            return false;
        }
        for (String d : new String[] {DEVICE_A, DEVICE_B, DEVICE_LA, DEVICE_LB}) {
            if (Rdma.devices().stream().noneMatch(x -> x.name().equals(d))) {
                return false;
            }
        }
        return true;
    }

    /** Runs {@code cmd}; null when it succeeded, else its output. */
    private static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "timed out";
            }
            return p.exitValue() == 0 ? null : new String(out, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Deletes the pair (both ends and the addresses); absent is fine. */
    private void close() {
        run(List.of("ip", "link", "del", LINK));
    }
}
