package io.jrdma.siw.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A second host for the fault and load tests: network namespace {@code jrel-<tag>} joined to the test's
 * namespace by a veth pair ({@code jrel<tag>a} here with {@link #HOST}, {@code jrel<tag>b} there with
 * {@link #PEER}, a /24 of its own). Needs root and iproute2: {@link #assume()} skips the test otherwise.
 * {@link #close()} deletes the namespace and the pair (call it from a finally block).
 */
public final class Netns implements AutoCloseable {
    /** This side's address. */
    public static final String HOST = "10.77.7.1";
    /** The namespace's address. */
    public static final String PEER = "10.77.7.2";
    private final String name;
    private final String here;
    private final String there;

    private Netns(String tag) {
        this.name = "jrel-" + tag;
        this.here = "jrel" + tag + "a";
        this.there = "jrel" + tag + "b";
    }

    /** Skips the calling test unless it runs as root with iproute2. */
    public static void assume() {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root");
        Assumptions.assumeTrue(run(false, "ip", "netns", "list") == 0, "iproute2 (ip netns) is not available");
    }

    /** Creates the namespace, the veth pair and the addresses; both links up. */
    public static Netns create(String tag) {
        assume();
        Netns n = new Netns(tag);
        n.close(); // a leftover of a killed run
        try {
            n.must("ip", "netns", "add", n.name);
            n.must("ip", "link", "add", n.here, "type", "veth", "peer", "name", n.there);
            n.must("ip", "link", "set", n.there, "netns", n.name);
            n.must("ip", "addr", "add", HOST + "/24", "dev", n.here);
            n.must("ip", "link", "set", n.here, "up");
            n.must("ip", "netns", "exec", n.name, "ip", "addr", "add", PEER + "/24", "dev", n.there);
            n.must("ip", "netns", "exec", n.name, "ip", "link", "set", n.there, "up");
            n.must("ip", "netns", "exec", n.name, "ip", "link", "set", "lo", "up");
            return n;
        } catch (RuntimeException | AssertionError e) {
            n.close();
            throw e;
        }
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
