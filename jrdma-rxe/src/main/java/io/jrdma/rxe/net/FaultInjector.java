package io.jrdma.rxe.net;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Loses, duplicates and reorders a device's outgoing data packets on purpose (off by default), so
 * RC's reliability can be tested on a loopback link that never loses anything. Decisions come from
 * a {@link SplittableRandom} seeded by the settings: the same seed gives the same sequence of
 * decisions for the same sequence of packets. QP1 (CM) datagrams are not touched; the IB CM has its
 * own drop hook ({@link io.jrdma.rxe.cm.RxeCm#dropWhen}).
 *
 * <p>Reordering holds one packet back and sends it right after the next one; a packet still held
 * at the end of the engine's duty cycle is sent then. Engine holder only, except
 * {@link #settings(Settings)}.
 */
public final class FaultInjector {
    /** What to do with one outgoing packet. */
    public enum Action {
        /** Send it. */
        SEND,
        /** Lose it. */
        DROP,
        /** Send it twice. */
        DUPLICATE,
        /** Hold it and send it after the next one. */
        REORDER
    }

    /**
     * Fault probabilities.
     *
     * @param loss probability that a packet is lost, 0..1
     * @param duplicate probability that a packet is sent twice
     * @param reorder probability that a packet is swapped with the next one
     * @param seed the random seed
     */
    public record Settings(double loss, double duplicate, double reorder, long seed) {
        /** No faults. */
        public static final Settings NONE = new Settings(0, 0, 0, 0);

        /** Checks the probabilities. */
        public Settings {
            check("loss", loss);
            check("duplicate", duplicate);
            check("reorder", reorder);
            if (loss + duplicate + reorder > 1) {
                throw new IllegalArgumentException("fault probabilities add up to more than 1");
            }
        }

        private static void check(String what, double p) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException(what + " probability " + p + " outside 0..1");
            }
        }

        /**
         * Only losses, with probability {@code loss}.
         *
         * @param loss probability that a packet is lost
         * @param seed the random seed
         * @return only losses, with probability {@code loss}
         */
        public static Settings loss(double loss, long seed) {
            return new Settings(loss, 0, 0, seed);
        }

        /**
         * Whether any fault is configured.
         *
         * @return true if any fault is configured
         */
        public boolean active() {
            return loss > 0 || duplicate > 0 || reorder > 0;
        }

        /**
         * Parses {@code loss=0.05,dup=0.01,reorder=0.02,seed=7} (every key optional; empty means none).
         *
         * @param text the text
         * @return parses {@code loss=0.05,dup=0.01,reorder=0.02,seed=7} (every key optional; empty means none)
         */
        public static Settings parse(String text) {
            double loss = 0;
            double dup = 0;
            double reorder = 0;
            long seed = 0;
            for (String item : text.split(",")) {
                String s = item.strip();
                if (s.isEmpty()) {
                    continue;
                }
                int eq = s.indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("fault setting '" + s + "' is not key=value");
                }
                String key = s.substring(0, eq).strip();
                String value = s.substring(eq + 1).strip();
                switch (key) {
                    case "loss" -> loss = Double.parseDouble(value);
                    case "dup", "duplicate" -> dup = Double.parseDouble(value);
                    case "reorder" -> reorder = Double.parseDouble(value);
                    case "seed" -> seed = Long.parseLong(value);
                    default -> throw new IllegalArgumentException("unknown fault setting '" + key
                            + "' (loss, dup, reorder, seed)");
                }
            }
            return new Settings(loss, dup, reorder, seed);
        }
    }

    /** Chooses outgoing packets to lose by their content (tests). */
    @FunctionalInterface
    public interface Chooser {
        /**
         * Whether to lose this packet. Engine holder; the packet is valid for this call only.
         *
         * @param packet the packet from its BTH on, ICRC sealed
         * @param length its length in bytes
         * @return true to lose it
         */
        boolean lose(MemorySegment packet, int length);
    }

    private volatile Settings settings;
    private volatile Chooser chooser;
    private volatile Chooser refuser;
    private Settings applied;
    private SplittableRandom random;

    /**
     * An injector with {@code settings}.
     *
     * @param settings the fault injector settings
     */
    public FaultInjector(Settings settings) {
        this.settings = settings;
    }

    /**
     * Replaces the settings (any thread); the random sequence restarts from the new seed.
     *
     * @param s the settings
     */
    public void settings(Settings s) {
        this.settings = s;
    }

    /**
     * Loses every outgoing data packet {@code c} chooses, besides what the settings lose (any thread;
     * null: none). Lets a test lose exactly the packets it names, say one PSN once.
     *
     * @param c the chooser, or null
     */
    public void loseWhen(Chooser c) {
        this.chooser = c;
    }

    /**
     * Refuses every outgoing packet {@code c} chooses as a full socket would (any thread; null: none):
     * the sender keeps the packet and tries again later, as when the kernel's send buffer is full. Lets a
     * test exercise that path, which a loopback socket with a large buffer almost never takes.
     *
     * @param c the chooser (true: refuse), or null
     */
    public void refuseWhen(Chooser c) {
        this.refuser = c;
    }

    /**
     * Whether the outgoing {@code packet} is refused as by a full socket ({@link #refuseWhen}). Engine holder.
     *
     * @param packet the packet from its BTH on, ICRC sealed
     * @param length its length
     * @return true to refuse it
     */
    public boolean refuses(MemorySegment packet, int length) {
        Chooser c = refuser;
        return c != null && c.lose(packet, length);
    }

    /**
     * Decides the fate of the outgoing {@code packet} of {@code length} bytes: lost if the
     * {@linkplain #loseWhen chooser} says so, else as {@link #decide()}. Engine holder.
     *
     * @param packet the packet from its BTH on
     * @param length its length
     * @return what to do with it
     */
    public Action decide(MemorySegment packet, int length) {
        Chooser c = chooser;
        if (c != null && c.lose(packet, length)) {
            return Action.DROP;
        }
        return decide();
    }

    /**
     * The current settings.
     *
     * @return the current settings
     */
    public Settings settings() {
        return settings;
    }

    /**
     * Decides the fate of the next packet. Engine holder; allocation-free once the seed is applied.
     *
     * @return decides the fate of the next packet
     */
    public Action decide() {
        Settings s = settings;
        if (!s.active()) {
            return Action.SEND;
        }
        if (s != applied) {
            applied = s;
            random = new SplittableRandom(s.seed());
        }
        double r = random.nextDouble();
        if (r < s.loss()) {
            return Action.DROP;
        }
        r -= s.loss();
        if (r < s.duplicate()) {
            return Action.DUPLICATE;
        }
        r -= s.duplicate();
        return r < s.reorder() ? Action.REORDER : Action.SEND;
    }
}
