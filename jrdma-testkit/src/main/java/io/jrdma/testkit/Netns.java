package io.jrdma.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A second host for the fault and load tests: a network namespace joined to the test's namespace by a
 * veth pair, with a private /24 of its own ({@link #host()} here, {@link #peer()} there). {@link
 * #create(String)} makes namespace {@code jrel-<tag>} with {@code jrel<tag>a}/{@code jrel<tag>b} and
 * {@link #HOST}/{@link #PEER}; {@link #create(String, String)} any name and /24. Needs root and iproute2:
 * {@link #assume()} skips the test otherwise. {@link #close()} deletes the namespace and the pair (call it
 * from a finally block).
 */
public final class Netns implements AutoCloseable {
    /** This side's address. */
    public static final String HOST = "10.77.7.1";
    /** The namespace's address. */
    public static final String PEER = "10.77.7.2";
    /** The longest interface name Linux takes ({@code IFNAMSIZ} - 1). */
    private static final int MAX_IFNAME = 15;
    private final String name;
    private final String here;
    private final String there;
    private final String hostAddress;
    private final String peerAddress;

    private Netns(String name, String here, String there, String subnet) {
        this.name = name;
        this.here = here;
        this.there = there;
        this.hostAddress = subnet + ".1";
        this.peerAddress = subnet + ".2";
    }

    /** Skips the calling test unless it runs as root with iproute2. */
    public static void assume() {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root");
        Assumptions.assumeTrue(run(false, "ip", "netns", "list") == 0, "iproute2 (ip netns) is not available");
    }

    /** Creates namespace {@code jrel-<tag>} on {@link #HOST}/{@link #PEER}; both links up. */
    public static Netns create(String tag) {
        return create(new Netns("jrel-" + tag, "jrel" + tag + "a", "jrel" + tag + "b", "10.77.7"));
    }

    /**
     * Creates namespace {@code name} joined by veth {@code <name without dashes>a} (here, {@code
     * <subnet>.1}) and {@code ...b} (there, {@code <subnet>.2}); both links up. {@code subnet} is the first
     * three octets of a private /24, e.g. {@code 10.78.1}.
     */
    public static Netns create(String name, String subnet) {
        String link = name.replace("-", "");
        if (link.length() + 1 > MAX_IFNAME) {
            throw new IllegalArgumentException("namespace name " + name + " too long for its veth names");
        }
        return create(new Netns(name, link + "a", link + "b", subnet));
    }

    private static Netns create(Netns n) {
        assume();
        n.close(); // a leftover of a killed run
        try {
            n.must("ip", "netns", "add", n.name);
            n.must("ip", "link", "add", n.here, "type", "veth", "peer", "name", n.there);
            n.must("ip", "link", "set", n.there, "netns", n.name);
            n.must("ip", "addr", "add", n.hostAddress + "/24", "dev", n.here);
            n.must("ip", "link", "set", n.here, "up");
            n.must("ip", "netns", "exec", n.name, "ip", "addr", "add", n.peerAddress + "/24", "dev", n.there);
            n.must("ip", "netns", "exec", n.name, "ip", "link", "set", n.there, "up");
            n.must("ip", "netns", "exec", n.name, "ip", "link", "set", "lo", "up");
            return n;
        } catch (RuntimeException | AssertionError e) {
            n.close();
            throw e;
        }
    }

    /** This side's address. */
    public String host() {
        return hostAddress;
    }

    /** The namespace's address. */
    public String peer() {
        return peerAddress;
    }

    /** The namespace's name (for {@code ip netns exec}). */
    public String name() {
        return name;
    }

    /** Takes this side of the link down: packets between the two hosts are dropped, nothing is reset. */
    public void linkDown() {
        must("ip", "link", "set", here, "down");
    }

    /** Brings this side of the link up again. */
    public void linkUp() {
        must("ip", "link", "set", here, "up");
    }

    /** Takes the namespace's side of the link down (its interface loses IFF_UP). */
    public void peerLinkDown() {
        must("ip", "netns", "exec", name, "ip", "link", "set", there, "down");
    }

    /** Brings the namespace's side of the link up again. */
    public void peerLinkUp() {
        must("ip", "netns", "exec", name, "ip", "link", "set", there, "up");
    }

    private void must(String... cmd) {
        if (run(true, cmd) != 0) {
            throw new AssertionError("failed: " + String.join(" ", cmd));
        }
    }

    private static int run(boolean report, String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            if (p.exitValue() != 0 && report) {
                System.err.println(String.join(" ", cmd) + ": " + new String(out, StandardCharsets.UTF_8).strip());
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public void close() {
        List<String[]> steps = new ArrayList<>();
        steps.add(new String[] {"ip", "link", "del", here});
        steps.add(new String[] {"ip", "netns", "del", name});
        for (String[] s : steps) {
            run(false, s); // absent is fine
        }
    }
}
