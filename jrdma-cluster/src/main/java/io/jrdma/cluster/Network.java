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
    /** Classic BPF {@code ld} of the ancillary random word ({@code SKF_AD_OFF + SKF_AD_RANDOM}). */
    private static final int LD_RANDOM = 32;
    /** The words of a netem spec that start a new option. */
    private static final java.util.Set<String> KEYWORDS = java.util.Set.of("delay", "loss", "duplicate", "reorder",
            "corrupt", "rate", "limit", "gap", "distribution", "slot", "ecn");

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

    /**
     * Creates the bridge and every host's namespace and link, with {@code netem} (may be empty) on each host's
     * eth0 (egress: each packet between two hosts passes one impaired link). Without sch_netem in the kernel,
     * {@link #emulate} applies what tc can do without it.
     *
     * @return what of {@code netem} was applied, in words
     */
    String create(String netem) {
        must("ip", "netns", "add", bridge());
        made.add(bridge());
        must("ip", "netns", "exec", bridge(), "ip", "link", "add", "br0", "type", "bridge");
        must("ip", "netns", "exec", bridge(), "ip", "link", "set", "br0", "up");
        must("ip", "netns", "exec", bridge(), "ip", "link", "set", "lo", "up");
        boolean netemHere = !netem.isBlank() && run(false, "ip", "netns", "exec", bridge(), "tc", "qdisc", "add", "dev",
                "lo", "root", "netem", "delay", "0ms") == 0;
        String applied = netem.isBlank() ? "none" : netemHere ? "netem " + netem.trim() : null;
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
            must("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "clsact");
            if (netemHere) {
                List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev",
                        "eth0", "root", "netem"));
                cmd.addAll(List.of(netem.trim().split("\\s+")));
                must(cmd.toArray(String[]::new));
            } else if (!netem.isBlank()) {
                applied = emulate(ns, netem);
            }
        }
        return applied;
    }

    /**
     * The part of a netem spec this kernel can apply without sch_netem: {@code loss P%} as a classic BPF filter
     * on eth0's egress that drops a packet when a random 32-bit word is below {@code P% * 2^32}, and {@code rate
     * R} as a token bucket. Delay, jitter, reordering, duplication and corruption need netem; they are named
     * as not applied.
     */
    private String emulate(String ns, String netem) {
        String[] w = netem.trim().split("\\s+");
        List<String> done = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (int i = 0; i < w.length; i++) {
            switch (w[i]) {
                case "loss" -> {
                    String p = w[++i];
                    if (i + 1 < w.length && w[i + 1].equals("random")) {
                        i++;
                    }
                    double pct = Double.parseDouble(p.replace("%", ""));
                    long threshold = Math.round(pct / 100 * 4294967296.0);
                    // ld rand; jge threshold -> pass; ret SHOT (2); pass: ret UNSPEC (-1, the next filter decides)
                    must("ip", "netns", "exec", ns, "tc", "filter", "add", "dev", "eth0", "egress", "prio", "10",
                            "bpf", "da", "bytecode", "4," + LD_RANDOM + " 0 0 4294963256,53 1 0 " + threshold
                            + ",6 0 0 2,6 0 0 4294967295");
                    done.add("loss " + p + " (BPF drop)");
                }
                case "rate" -> {
                    String r = w[++i];
                    must("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", r,
                            "burst", "64kb", "latency", "50ms");
                    done.add("rate " + r + " (tbf)");
                }
                default -> {
                    StringBuilder sk = new StringBuilder(w[i]);
                    while (i + 1 < w.length && !KEYWORDS.contains(w[i + 1])) {
                        sk.append(' ').append(w[++i]);
                    }
                    skipped.add(sk.toString());
                }
            }
        }
        return "this kernel has no sch_netem: applied " + (done.isEmpty() ? "nothing" : String.join(", ", done))
                + (skipped.isEmpty() ? "" : "; NOT applied (they need netem): " + String.join(", ", skipped));
    }

    /** Takes host {@code i}'s bridge port down (its packets are dropped; nothing is reset) or up again. */
    void link(int i, boolean up) {
        must("ip", "netns", "exec", bridge(), "ip", "link", "set", "h" + i, up ? "up" : "down");
    }

    /** Drops every IPv4 packet between the hosts of {@code a} and those of {@code b} (egress filters, both sides). */
    void partition(List<Integer> a, List<Integer> b) {
        cut(a, b);
        cut(b, a);
    }

    /**
     * A classic BPF filter on each {@code from} host's egress: an IPv4 packet (ethertype at 12) whose destination
     * (at 30) is a {@code to} host is dropped; anything else goes on to the next filter.
     */
    private void cut(List<Integer> from, List<Integer> to) {
        StringBuilder prog = new StringBuilder();
        int n = to.size();
        // 0: ldh [12]; 1: jeq 0x800 else -> pass; 2: ld [30]; 3..3+n-1: jeq ip -> drop; pass: ret -1; drop: ret 2
        prog.append(n + 5).append(",40 0 0 12,21 0 ").append(n + 1).append(" 2048,32 0 0 30");
        for (int k = 0; k < n; k++) {
            prog.append(",21 ").append(n - k).append(" 0 ").append(ipWord(to.get(k)));
        }
        prog.append(",6 0 0 4294967295,6 0 0 2");
        for (int f : from) {
            must("ip", "netns", "exec", ns(f), "tc", "filter", "add", "dev", "eth0", "egress", "prio", "1", "bpf",
                    "da", "bytecode", prog.toString());
        }
    }

    private static long ipWord(int host) {
        long v = 0;
        for (String o : ip(host).split("\\.")) {
            v = (v << 8) | Integer.parseInt(o);
        }
        return v;
    }

    /** Heals a {@link #partition}: removes the partition filters of every host in {@code hostsCut}. */
    void heal(List<Integer> hostsCut) {
        for (int h : hostsCut) {
            must("ip", "netns", "exec", ns(h), "tc", "filter", "del", "dev", "eth0", "egress", "prio", "1");
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
