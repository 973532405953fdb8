package io.jrdma.rxe.testing;

import io.jrdma.testkit.Netns;
import io.jrdma.verbs.Rdma;

/**
 * A second network namespace for the RoCE fault and load tests, with an rxe device on this side of its
 * veth pair. rxe reads {@code jrdma.rxe.devices} once, when it first opens its devices, so {@link #open}
 * must run before anything in the JVM touches rxe (a failsafe execution with the test class alone, from
 * its {@code @BeforeAll}).
 */
public final class RxeNetns {
    private RxeNetns() {
    }

    /**
     * Creates namespace {@code name} with the /24 {@code subnet} and adds device {@code device} on this
     * side's address; returns null (and says why on stderr) when not root or the namespace cannot be made.
     *
     * @param name the namespace
     * @param subnet the first three octets of its /24
     * @param device the rxe device to serve this side's address
     * @return the namespace, or null
     */
    public static Netns open(String name, String subnet, String device) {
        if (!"root".equals(System.getProperty("user.name"))) {
            return null;
        }
        Netns ns;
        try {
            ns = Netns.create(name, subnet);
        } catch (RuntimeException | AssertionError e) {
            System.err.println("no namespace " + name + ": " + e);
            return null;
        }
        String devices = System.getProperty("jrdma.rxe.devices", "");
        System.setProperty("jrdma.rxe.devices", (devices.isEmpty() ? "" : devices + ",") + device + ":" + ns.host());
        return ns;
    }

    /**
     * Whether {@code ns} was made and rxe serves it with {@code device}.
     *
     * @param ns the namespace from {@link #open}, or null
     * @param device the device name
     * @return true if the test can use them
     */
    public static boolean usable(Netns ns, String device) {
        return ns != null && Rdma.devices().stream().anyMatch(d -> d.name().equals(device));
    }
}
