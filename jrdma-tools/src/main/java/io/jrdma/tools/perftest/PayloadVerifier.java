package io.jrdma.tools.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.verbs.MemoryRegion;

/**
 * jrdma's check of what a run moved (perftest has none): before a run the source slots of every
 * QP are filled with {@link PerfPattern} and the slots data lands in zeroed; after it, each slot the
 * run wrote must hold the pattern, or for fetch-and-add the counters add up to the operations.
 * Used outside the measured loops only.
 */
final class PayloadVerifier {

    private final PerfTest test;
    private final Verb verb;
    private final int numQps;
    private final boolean ud;
    private final int cycleBuffer;
    private final int cacheLine;
    private final int region;
    private final boolean compareAndSwap;
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final long[] myAddr;
    private final long[] rxBufferAddr;

    /**
     * A verifier of a data path's buffer.
     *
     * @param c the configuration
     * @param buf the buffer
     * @param mr the buffer's MR
     * @param posts the QPs' regions
     */
    PayloadVerifier(PathConfig c, MemorySegment buf, MemoryRegion mr, QpPosts posts) {
        this.test = c.test();
        this.verb = c.verb();
        this.numQps = c.numQps();
        this.ud = c.ud();
        this.cycleBuffer = c.cycleBuffer();
        this.cacheLine = c.cacheLine();
        this.region = c.region();
        this.compareAndSwap = c.compareAndSwap();
        this.buf = buf;
        this.mr = mr;
        this.myAddr = posts.myAddr;
        this.rxBufferAddr = posts.rxBufferAddr;
    }

    /**
     * Fills every source slot of every QP with {@link PerfPattern} for a message size: the send
     * regions for SEND/WRITE, the advertised regions for READ (whose data the peer reads), zeroes the
     * regions data will land in.
     *
     * @param size the message size
     */
    void prepareVerification(int size) {
        int step = DataPath.inc(size, cacheLine);
        int slots = size <= cycleBuffer / 2 ? cycleBuffer / step : 1;
        for (int i = 0; i < numQps; i++) {
            long src = (verb == Verb.READ ? rxBufferAddr[i] : myAddr[i]) - mr.address();
            long dst = (verb == Verb.READ ? myAddr[i] : rxBufferAddr[i]) - mr.address();
            buf.asSlice(dst, region).fill((byte) 0);
            for (int s = 0; s < slots; s++) {
                PerfPattern.fill(buf, src + (long) s * step, size);
            }
        }
    }

    /**
     * Rewrites this side's first source slot with the pattern (WRITE latency overwrites its last
     * byte with the count each iteration).
     *
     * @param size the message size
     */
    void refillSource(int size) {
        PerfPattern.fill(buf, myAddr[0] - mr.address(), size);
    }

    /**
     * Checks what landed on this side after a run of a jrdma peer that filled its source with
     * {@link PerfPattern}: every slot the run wrote holds the pattern (for WRITE latency, all but the
     * last byte, which must hold the iteration count); for fetch-and-add the slot counters add up
     * to the operations.
     *
     * @param size the message size
     * @param iterations messages (or round trips) per QP of the run
     * @param landsHere whether data lands on this side (the passive side of WRITE/SEND/atomics, the
     *     active side of READ, both sides of WRITE latency)
     * @return the outcome
     */
    Verification verify(int size, long iterations, boolean landsHere) {
        if (!landsHere) {
            return Verification.notApplicable();
        }
        if (verb == Verb.ATOMIC) {
            return verifyAtomics(iterations, DataPath.inc(size, cacheLine));
        }
        int step = DataPath.inc(size, cacheLine);
        boolean walk = test.bandwidth() && !(ud && test.usesReceives()) && size <= cycleBuffer / 2;
        int slots = walk ? (int) Math.min(iterations, cycleBuffer / step) : 1;
        int offset = test.usesReceives() && ud ? cacheLine : 0;
        boolean lastIsCount = test == PerfTest.WRITE_LAT;
        CRC32C crc = new CRC32C();
        int len = lastIsCount ? size - 1 : size;
        long expected = PerfPattern.crc(len);
        long bytes = 0;
        for (int i = 0; i < numQps; i++) {
            long base = (verb == Verb.READ ? myAddr[i] : rxBufferAddr[i]) - mr.address() + offset;
            for (int s = 0; s < slots; s++) {
                MemorySegment slot = buf.asSlice(base + (long) s * step, size);
                crc.reset();
                crc.update(slot.asSlice(0, len).asByteBuffer());
                if (crc.getValue() != expected) {
                    long at = PerfPattern.firstMismatch(slot, len);
                    return Verification.failed(bytes, "QP " + i + " slot " + s + ": byte " + at
                            + " differs from what the peer sent (crc32c 0x" + Long.toHexString(crc.getValue())
                            + ", expected 0x" + Long.toHexString(expected) + ")");
                }
                if (lastIsCount) {
                    byte count = slot.get(ValueLayout.JAVA_BYTE, size - 1);
                    if (count != (byte) iterations) {
                        return Verification.failed(bytes, "QP " + i + ": the last byte holds " + (count & 0xff)
                                + ", not the iteration count " + (iterations & 0xff) + " (mod 256)");
                    }
                }
                bytes += size;
            }
        }
        return Verification.passed(bytes, slots * numQps, expected);
    }

    private Verification verifyAtomics(long iterations, int step) {
        if (compareAndSwap) {
            return Verification.notApplicable();
        }
        int slots = cycleBuffer / step;
        for (int i = 0; i < numQps; i++) {
            long base = rxBufferAddr[i] - mr.address();
            long sum = 0;
            for (int s = 0; s < slots; s++) {
                sum += buf.get(ValueLayout.JAVA_LONG_UNALIGNED, base + (long) s * step);
            }
            if (sum != iterations) {
                return Verification.failed(0, "QP " + i + ": the fetch-and-add counters add up to " + sum + ", not "
                        + iterations);
            }
        }
        return Verification.passed(8L * slots * numQps, slots * numQps, iterations);
    }
}
