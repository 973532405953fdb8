package io.jrdma.tools.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.JsonObject;
import io.jrdma.tools.perf.LatResult;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perftest.PerfEngine;
import io.jrdma.tools.perftest.PerfSpec;
import io.jrdma.tools.perftest.PerfTest;
import io.jrdma.tools.perftest.Verification;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;

/**
 * {@code jrdma demo}: the first thing a newcomer runs. A server and a client in this process
 * connect over the iWARP transport (siw0) on 127.0.0.1 through the connection manager, then move
 * data with RDMA WRITE, RDMA READ and SEND/RECV and measure WRITE latency at a few sizes, each
 * run a perftest-style test ({@link PerfEngine}) whose receiving side checks, slot by slot, that
 * what landed is what was sent. One table says what moved, how fast and whether it checked out;
 * a failed check ends the demo with a non-zero exit.
 */
public final class Demo {

    /** The sizes the demo moves. */
    public static final List<Integer> SIZES = List.of(64, 4096, 65536, 1 << 20);

    /** Bytes one bandwidth run moves at most (the iterations are derived from it). */
    public static final long BYTES_PER_RUN = 64L << 20;

    /** Most iterations of one run. */
    public static final int MAX_ITERATIONS = 5000;

    /** Fewest iterations of one run (more than the 64 slots a small message walks through). */
    public static final int MIN_ITERATIONS = 100;

    private final String device;
    private final boolean json;
    private final PrintStream out;
    private final PrintStream err;
    private final Function<PerfSpec, PerfEngine.LocalRun> runner;

    /**
     * Creates a demo.
     *
     * @param device the device, e.g. {@code siw0}
     * @param json one JSON object per row instead of the table
     * @param out where the table goes
     * @param err where progress notes go
     * @param runner runs one test with both sides in this process ({@link PerfEngine#runLocal(PerfSpec)})
     */
    public Demo(String device, boolean json, PrintStream out, PrintStream err,
            Function<PerfSpec, PerfEngine.LocalRun> runner) {
        this.device = device;
        this.json = json;
        this.out = out;
        this.err = err;
        this.runner = runner;
    }

    /**
     * The iterations of a run of {@code size}-byte messages.
     *
     * @param size bytes
     * @param latency whether the run measures latency (fewer round trips)
     * @return iterations
     */
    public static int iterationsFor(int size, boolean latency) {
        long n = BYTES_PER_RUN / size / (latency ? 8 : 1);
        return (int) Math.max(MIN_ITERATIONS, Math.min(latency ? MAX_ITERATIONS / 5 : MAX_ITERATIONS, n));
    }

    /**
     * One line of the table.
     *
     * @param test the tool
     * @param size the message size
     * @param result the client's row
     * @param verification what the receiving side found
     * @param millis wall time of the run (connection setup included)
     */
    public record Row(PerfTest test, int size, PerfResult result, Verification verification, long millis) {
    }

    /**
     * Runs the demo.
     *
     * @return the rows
     * @throws ToolFailure when a run fails or a verification fails (after printing the table)
     */
    public List<Row> run() {
        Device d = Rdma.device(device);
        String transport = d.transport() == TransportType.IWARP
                ? "iWARP: MPA/DDP/RDMAP over TCP, Linux siw's wire protocol"
                : d.provider() + ", " + d.transport();
        if (!json) {
            out.println("jrdma demo: RDMA between a server and a client in this process, over " + device + " ("
                    + transport + ") on 127.0.0.1.");
            out.println("Each run connects through the RDMA connection manager, moves the data, and the receiving "
                    + "side checks every");
            out.println("message slot it landed in (CRC32C against what was sent).");
            out.println();
        }
        warmUp();
        List<Row> rows = new ArrayList<>();
        List<PerfTest> tests = List.of(PerfTest.WRITE_BW, PerfTest.READ_BW, PerfTest.SEND_BW, PerfTest.WRITE_LAT);
        if (!json) {
            out.println(header());
            out.println("-".repeat(header().length()));
        }
        ToolFailure failure = null;
        for (PerfTest t : tests) {
            for (int size : SIZES) {
                PerfSpec spec = PerfSpec.builder(t).device(device).size(size)
                        .iterations(iterationsFor(size, !t.bandwidth())).verify(true).build();
                long start = System.nanoTime();
                PerfEngine.LocalRun r;
                try {
                    r = runner.apply(spec);
                } catch (ToolFailure f) {
                    failure = new ToolFailure(t.command() + " " + size + " B: " + f.getMessage(), f);
                    out.println(line(new Row(t, size, null, Verification.failed(0, f.getMessage()), 0)));
                    continue;
                }
                Row row = new Row(t, size, r.client().rows().get(0), landed(t, r),
                        (System.nanoTime() - start) / 1_000_000);
                rows.add(row);
                if (json) {
                    out.println(json(row).toString());
                } else {
                    out.println(line(row));
                }
                if (!row.verification().ok()) {
                    failure = new ToolFailure(t.command() + " " + size + " B: verification failed: "
                            + row.verification().detail());
                }
            }
        }
        if (!json) {
            out.println("-".repeat(header().length()));
        }
        if (failure != null) {
            throw failure;
        }
        if (!json) {
            long bytes = 0;
            for (Row r : rows) {
                bytes += r.result().bytes() * r.result().iterations() * (r.test().bandwidth() ? 1 : 2);
            }
            out.printf(Locale.ROOT, "All %d runs verified: %s moved and checked. Next: jrdma --help, "
                    + "jrdma write-bw (server) + jrdma write-bw 127.0.0.1 (client).%n", rows.size(), bytes(bytes));
        }
        return rows;
    }

    private void warmUp() {
        // The JIT compiles the data path during the first runs; one untimed run keeps that out of the table.
        PerfSpec spec = PerfSpec.builder(PerfTest.WRITE_BW).device(device).size(4096).iterations(3000).build();
        runner.apply(spec);
        PerfSpec lat = PerfSpec.builder(PerfTest.WRITE_LAT).device(device).size(64).iterations(2000).build();
        runner.apply(lat);
        err.flush();
    }

    /** The verification of the side data landed on. */
    static Verification landed(PerfTest t, PerfEngine.LocalRun r) {
        return switch (t) {
            case READ_BW, READ_LAT -> r.client().verification();
            case WRITE_LAT, SEND_LAT -> both(r.client().verification(), r.server().verification());
            default -> r.server().verification();
        };
    }

    private static Verification both(Verification a, Verification b) {
        if (!a.ok()) {
            return a;
        }
        if (!b.ok()) {
            return b;
        }
        return new Verification(true, true, a.bytes() + b.bytes(), a.slots() + b.slots(), a.crc32c(), "");
    }

    private static String header() {
        return String.format(Locale.ROOT, "%-12s %9s %9s %11s %9s %22s  %s", "operation", "size", "messages",
                "moved", "run time", "throughput / latency", "data check");
    }

    private static String line(Row r) {
        String op = switch (r.test()) {
            case WRITE_BW -> "RDMA WRITE";
            case READ_BW -> "RDMA READ";
            case SEND_BW -> "SEND/RECV";
            case WRITE_LAT -> "WRITE ping";
            default -> r.test().command();
        };
        if (r.result() == null) {
            return String.format(Locale.ROOT, "%-12s %9s %9s %11s %9s %22s  FAILED: %s", op, bytes(r.size()), "-",
                    "-", "-", "-", r.verification().detail());
        }
        long messages = r.result().iterations() * (r.test().bandwidth() ? 1 : 2);
        String speed = switch (r.result()) {
            case BwResult bw -> String.format(Locale.ROOT, "%8.2f Gbit/s %6.3f Mmsg/s",
                    bw.bwAverage() * bw.unit().bytesPerUnit() * 8 / 1e9, bw.msgRateMpps());
            case LatResult lat -> String.format(Locale.ROOT, "%7.2f us typ, p99 %.0f us", lat.tTypical(), lat.p99());
            default -> r.result().toString();
        };
        Verification v = r.verification();
        String check = v.ok() ? String.format(Locale.ROOT, "ok, %d slot%s, crc32c %08x", v.slots(),
                v.slots() == 1 ? "" : "s", v.crc32c()) : "FAILED: " + v.detail();
        return String.format(Locale.ROOT, "%-12s %9s %9d %11s %7d ms %22s  %s", op, bytes(r.size()), messages,
                bytes((long) r.size() * messages), r.millis(), speed, check);
    }

    private static JsonObject json(Row r) {
        JsonObject o = new JsonObject().put("tool", "demo").put("test", r.test().command()).put("size", r.size())
                .put("run_ms", r.millis());
        r.result().writeJson(o);
        return o.put("verified", r.verification().ok()).put("checked_bytes", r.verification().bytes())
                .put("checked_slots", r.verification().slots());
    }

    static String bytes(long n) {
        if (n >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
        }
        if (n >= 1L << 20) {
            return n % (1L << 20) == 0 ? (n >> 20) + " MiB" : String.format(Locale.ROOT, "%.1f MiB",
                    n / (double) (1L << 20));
        }
        if (n >= 1024) {
            return n % 1024 == 0 ? (n >> 10) + " KiB" : String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        }
        return n + " B";
    }
}
