package io.jrdma.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * The cluster's network: a namespace per host ({@code <prefix>-h<i>}, interface {@code eth0} with
 * {@code 10.99.<i / 250>.<i % 250 + 1>/16}) and a namespace for the bridge ({@code <prefix>-br}, bridge
 * {@code br0} with port {@code h<i>} per host), joined by veth pairs created straight into their namespaces,
 * so no interface ever appears in the namespace the coordinator runs in. The prefix is {@code jcl<pid>}: names
 * of other programs are never touched, and {@link #sweepStale()} removes only what a coordinator left behind
 * that is no longer running. Every step is a command of iproute2 ({@code ip}, {@code tc}).
 */
final class Network {
    /** Namespaces of this program start with this. */
    static final String FAMILY = "jcl";
    private static final java.util.regex.Pattern OURS = java.util.regex.Pattern.compile("^(" + FAMILY + "(\\d+))-\\S+");
    private static final long COMMAND_TIMEOUT_S = 20;

    private final String prefix;
    private final int hosts;
    private final List<String> made = new ArrayList<>();

    Network(String prefix, int hosts) {
        this.prefix = prefix;
        this.hosts = hosts;
    }

    /** The prefix of this coordinator's names. */
    static String prefixOf(long pid) {
        return FAMILY + pid;
    }

    String bridge() {
        return prefix + "-br";
    }

    String ns(int host) {
        return prefix + "-h" + host;
    }

    static String ip(int host) {
        return "10.99." + host / 250 + "." + (host % 250 + 1);
    }

    /** Creates the bridge and every host's namespace and link; {@code netem} (may be empty) on each host's eth0. */
    void create(String netem) {
        must("ip", "netns", "add", bridge());
        made.add(bridge());
        must("ip", "netns", "exec", bridge(), "ip", "link", "add", "br0", "type", "bridge");
        must("ip", "netns", "exec", bridge(), "ip", "link", "set", "br0", "up");
        must("ip", "netns", "exec", bridge(), "ip", "link", "set", "lo", "up");
        for (int i = 0; i < hosts; i++) {
            String ns = ns(i);
            must("ip", "netns", "add", ns);
            made.add(ns);
            must("ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", "h" + i, "netns", bridge());
            must("ip", "netns", "exec", bridge(), "ip", "link", "set", "h" + i, "master", "br0");
            must("ip", "netns", "exec", bridge(), "ip", "link", "set", "h" + i, "up");
            must("ip", "netns", "exec", ns, "ip", "addr", "add", ip(i) + "/16", "dev", "eth0");
            must("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up");
            must("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
            if (!netem.isBlank()) {
                List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev",
                        "eth0", "root", "netem"));
                cmd.addAll(List.of(netem.trim().split("\\s+")));
                must(cmd.toArray(String[]::new));
            }
        }
    }

    /** Takes host {@code i}'s bridge port down (its packets are dropped; nothing is reset) or up again. */
    void link(int i, boolean up) {
        must("ip", "netns", "exec", bridge(), "ip", "link", "set", "h" + i, up ? "up" : "down");
    }

    /** Drops every IP packet between the hosts of {@code a} and those of {@code b} (egress filters on both sides). */
    void partition(List<Integer> a, List<Integer> b) {
        cut(a, b);
        cut(b, a);
    }

    private void cut(List<Integer> from, List<Integer> to) {
        for (int f : from) {
            must("ip", "netns", "exec", ns(f), "tc", "qdisc", "add", "dev", "eth0", "clsact");
            for (int t : to) {
                must("ip", "netns", "exec", ns(f), "tc", "filter", "add", "dev", "eth0", "egress", "protocol", "ip",
                        "prio", "1", "u32", "match", "ip", "dst", ip(t) + "/32", "action", "drop");
            }
        }
    }

    /** Heals a {@link #partition}: removes the filters of every host in {@code hosts}. */
    void heal(List<Integer> hostsCut) {
        for (int h : hostsCut) {
            must("ip", "netns", "exec", ns(h), "tc", "qdisc", "del", "dev", "eth0", "clsact");
        }
    }

    /** Deletes every namespace this network made (their links go with them); the processes in them must be gone. */
    void delete() {
        for (int i = made.size() - 1; i >= 0; i--) {
            killAll(made.get(i));
            run(false, "ip", "netns", "del", made.get(i));
        }
        made.clear();
    }

    /** Names of namespaces with this prefix that still exist. */
    List<String> remaining() {
        List<String> left = new ArrayList<>();
        for (String n : list()) {
            if (n.startsWith(prefix + "-")) {
                left.add(n);
            }
        }
        return left;
    }

    /** Deletes namespaces a coordinator made that is no longer running (a run killed with SIGKILL). */
    static List<String> sweepStale() {
        List<String> swept = new ArrayList<>();
        for (String n : list()) {
            Matcher m = OURS.matcher(n);
            if (m.find() && ProcessHandle.of(Long.parseLong(m.group(2))).isEmpty()) {
                killAll(n);
                run(false, "ip", "netns", "del", n);
                swept.add(n);
            }
        }
        return swept;
    }

    private static List<String> list() {
        List<String> names = new ArrayList<>();
        for (String l : output("ip", "netns", "list").split("\n")) {
            String n = l.trim().split("\\s+")[0];
            if (!n.isEmpty()) {
                names.add(n);
            }
        }
        return names;
    }

    /** SIGKILLs the processes left in namespace {@code ns} (only ever one of this program's). */
    private static void killAll(String ns) {
        for (String pid : output("ip", "netns", "pids", ns).split("\\s+")) {
            if (!pid.isBlank()) {
                ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    static void must(String... cmd) {
        String out = runOutput(true, cmd);
        if (out != null) {
            throw new IllegalStateException("failed: " + String.join(" ", cmd) + ": " + out);
        }
    }

    static int run(boolean report, String... cmd) {
        return runOutput(report, cmd) == null ? 0 : 1;
    }

    /** Runs {@code cmd}; {@code null} when it succeeded, else its output. */
    private static String runOutput(boolean report, String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "timed out";
            }
            String text = new String(out, StandardCharsets.UTF_8).strip();
            return p.exitValue() == 0 ? null : "exit " + p.exitValue() + (text.isEmpty() ? "" : ": " + text);
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String output(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS);
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : "";
        } catch (IOException | IllegalThreadStateException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
