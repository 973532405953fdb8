package io.jrdma.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A link that delays and drops packets without {@code sch_netem}: two TUN devices, and per direction a reader
 * thread that takes each packet off one device into a ring of fixed slots, drops it with the configured
 * probability (a seeded PRNG of its own per direction), else stamps it due {@code delay} later, and a writer
 * thread that puts it on the other device when it is due. Packets keep their order; the ring's slot count is
 * the queue limit (a packet arriving at a full ring is dropped and counted as an overflow, like netem's
 * {@code limit}).
 *
 * <p>Run in a namespace of its own: {@code DelayLine --a NAME --b NAME [--mtu M] [--limit N] [--seed S]}
 * creates the two devices there and prints {@code ready}; the caller then moves each into the namespace it
 * joins ({@code ip link set NAME netns NS}) and gives it its address. On standard input it takes {@code set
 * DELAY_US LOSS_PERCENT} (answers {@code ok}) and {@code stats} (answers one line per direction, cumulative:
 * {@code a>b received R dropped D overflow O forwarded F late_us L}, L the sum over the forwarded packets of
 * the time each was written after it was due: the queueing the delay line adds when its writer falls behind).
 * End of input ends it, and its devices go with its descriptors.
 */
public final class DelayLine {
    /** Timer slack of the writer threads: their sleeps end within this of the packet's due time. */
    private static final long TIMER_SLACK_NS = 1_000;

    private final Lane ab;
    private final Lane ba;

    private DelayLine(Tun a, Tun b, int mtu, int limit, long seed, Arena arena) {
        SplittableRandom root = new SplittableRandom(seed);
        this.ab = new Lane("a>b", a, b, mtu, limit, root.split(), arena);
        this.ba = new Lane("b>a", b, a, mtu, limit, root.split(), arena);
    }

    /**
     * Runs the delay line (see the class comment).
     *
     * @param args the command line
     */
    public static void main(String[] args) throws IOException {
        String a = null;
        String b = null;
        int mtu = 9000;
        int limit = 1000;
        long seed = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--a" -> a = v;
                case "--b" -> b = v;
                case "--mtu" -> mtu = Integer.parseInt(v);
                case "--limit" -> limit = Integer.parseInt(v);
                case "--seed" -> seed = Long.parseLong(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (a == null || b == null || mtu < 576 || mtu > 65535 || limit < 1) {
            System.err.println("usage: DelayLine --a NAME --b NAME [--mtu 576..65535] [--limit N] [--seed S]");
            System.exit(2);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Arena arena = Arena.ofShared();
        DelayLine line = new DelayLine(Tun.create(a, arena), Tun.create(b, arena), mtu, limit, seed, arena);
        line.ab.start();
        line.ba.start();
        out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String l = in.readLine(); l != null; l = in.readLine()) {
            String[] w = l.trim().split("\\s+");
            switch (w[0]) {
                case "set" -> {
                    long delayNs = Math.round(Double.parseDouble(w[1]) * 1_000);
                    double loss = Double.parseDouble(w[2]) / 100;
                    if (delayNs < 0 || loss < 0 || loss > 1) {
                        out.println("error: delay must be >= 0 and loss 0..100 %");
                    } else {
                        line.ab.set(delayNs, loss);
                        line.ba.set(delayNs, loss);
                        out.println("ok");
                    }
                }
                case "stats" -> {
                    out.println(line.ab.stats());
                    out.println(line.ba.stats());
                }
                case "" -> { }
                default -> out.println("error: unknown command " + w[0]);
            }
        }
        System.exit(0);
    }

    /** One direction: a ring of slots between a reader and a writer thread. */
    static final class Lane {
        private final String name;
        private final Tun in;
        private final Tun out;
        private final int slots;
        private final MemorySegment[] slot;
        private final int[] len;
        private final long[] due;
        private final MemorySegment scratch;
        private final SplittableRandom rng;
        private final Thread reader;
        private final Thread writer;
        private volatile long delayNs;
        private volatile double loss;
        /** Next slot to fill (written by the reader only). */
        private volatile long tail;
        /** Next slot to send (written by the writer only). */
        private volatile long head;
        private volatile boolean writerParked;
        private volatile long received;
        private volatile long dropped;
        private volatile long overflow;
        private volatile long forwarded;
        private volatile long lateNs;

        Lane(String name, Tun in, Tun out, int mtu, int slots, SplittableRandom rng, Arena arena) {
            this.name = name;
            this.in = in;
            this.out = out;
            this.slots = slots;
            MemorySegment ring = arena.allocate((long) mtu * slots, 64);
            this.slot = new MemorySegment[slots];
            for (int i = 0; i < slots; i++) {
                slot[i] = ring.asSlice((long) i * mtu, mtu);
            }
            this.len = new int[slots];
            this.due = new long[slots];
            this.scratch = arena.allocate(mtu);
            this.rng = rng;
            this.reader = Thread.ofPlatform().daemon().name("delay-" + name + "-in").unstarted(this::readLoop);
            this.writer = Thread.ofPlatform().daemon().name("delay-" + name + "-out").unstarted(this::writeLoop);
        }

        void start() {
            reader.start();
            writer.start();
        }

        void set(long delayNs, double loss) {
            this.delayNs = delayNs;
            this.loss = loss;
        }

        String stats() {
            long f = forwarded;
            return name + " received " + received + " dropped " + dropped + " overflow " + overflow + " forwarded " + f
                    + " late_us " + lateNs / 1_000;
        }

        private void readLoop() {
            while (true) {
                long t = tail;
                int i = (int) (t % slots);
                boolean full = t - head >= slots;
                int n = in.read(full ? scratch : slot[i]);
                if (n < 0) {
                    return;
                }
                received++;
                double p = loss;
                if (p > 0 && rng.nextDouble() < p) {
                    dropped++;
                    continue;
                }
                if (full) {
                    if (t - head >= slots) {
                        overflow++;
                        continue;
                    }
                    MemorySegment.copy(scratch, 0, slot[i], 0, n);
                }
                len[i] = n;
                due[i] = System.nanoTime() + delayNs;
                tail = t + 1;
                if (writerParked) {
                    LockSupport.unpark(writer);
                }
            }
        }

        private void writeLoop() {
            Tun.timerSlack(TIMER_SLACK_NS);
            while (true) {
                long h = head;
                if (h == tail) {
                    writerParked = true;
                    if (h == tail) {
                        LockSupport.park(this);
                    }
                    writerParked = false;
                    continue;
                }
                int i = (int) (h % slots);
                long now = System.nanoTime();
                long wait = due[i] - now;
                if (wait > 0) {
                    LockSupport.parkNanos(this, wait);
                    continue;
                }
                out.write(slot[i], len[i]);
                lateNs += -wait;
                forwarded++;
                head = h + 1;
            }
        }
    }
}
