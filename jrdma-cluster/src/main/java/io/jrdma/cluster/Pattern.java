package io.jrdma.cluster;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The bytes the cluster moves: every 8-byte word is a function of a seed and its offset, so the receiving
 * side recomputes what must have landed without the sender's copy. The seed of a message names its
 * connection (a tag unique to the connection and its client's incarnation) and its sequence number, so a
 * stale, duplicated or misplaced message does not verify.
 */
final class Pattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Pattern() {
    }

    /** A 64-bit mix (the SplitMix64 finalizer): nearby inputs give unrelated words. */
    static long mix(long x) {
        long z = x;
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** The seed of message {@code seq} of connection {@code tag}, for stream {@code kind} (WRITE, SEND). */
    static long seed(long tag, long seq, int kind) {
        return mix(tag * GOLDEN + seq * 31 + kind);
    }

    /** Fills {@code len} bytes (a multiple of 8) at {@code off} with the words of {@code seed}. */
    static void fill(MemorySegment seg, long off, int len, long seed) {
        for (int i = 0; i < len; i += 8) {
            seg.set(WORD, off + i, mix(seed + i));
        }
    }

    /**
     * The bytes at {@code off} that differ from the words of {@code seed} laid at {@code base} (a word that
     * differs counts 8), 0 when all match.
     */
    static int mismatches(MemorySegment seg, long off, int len, long seed, long base) {
        int bad = 0;
        for (int i = 0; i < len; i += 8) {
            if (seg.get(WORD, off + i) != mix(seed + base + i)) {
                bad += 8;
            }
        }
        return bad;
    }
}
