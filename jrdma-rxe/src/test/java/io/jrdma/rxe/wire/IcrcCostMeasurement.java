package io.jrdma.rxe.wire;

import io.jrdma.internal.roce.Icrc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32;

/**
 * Not a test: a measurement run by hand (see the golden README) of what an ICRC check costs
 * compared with one plain CRC32 pass over the same bytes. Prints ns per operation.
 * <pre>
 *   java -cp jrdma-rxe/target/classes:jrdma-rxe/target/test-classes:jrdma-core/target/classes \
 *        io.jrdma.rxe.wire.IcrcCostMeasurement
 * </pre>
 */
public final class IcrcCostMeasurement {
    private static final int SRC = 0x0a00040f;
    private static final int DST = 0x0a000402;
    private static long sink;

    private IcrcCostMeasurement() {
    }

    /**
     * Runs the measurement.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        int[] sizes = {32, 280, 1044, 4136};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(8192);
            byte[] random = new byte[8192];
            new Random(1).nextBytes(random);
            MemorySegment.copy(MemorySegment.ofArray(random), 0, buf, 0, 8192);
            Icrc icrc = new Icrc();
            for (int round = 0; round < 3; round++) {
                System.out.printf("round %d%n", round);
                for (int len : sizes) {
                    icrc.sealIpv4ForSend(buf, 0, len, SRC, DST, 55410, 4791);
                    double crc = time(() -> plainCrc(buf, len));
                    double seal = time(() -> sink += icrc.sealIpv4ForSend(buf, 0, len, SRC, DST, 55410, 4791));
                    icrc.sealIpv4ForSend(buf, 0, len, SRC, DST, 55410, 4791);
                    double solve = time(() -> sink += icrc.solveIpv4Id(buf, 0, len, SRC, DST, 55410, 4791));
                    double solveNewLength = time(() -> {
                        sink += icrc.solveIpv4Id(buf, 0, len, SRC, DST, 55410, 4791);
                        sink += icrc.solveIpv4Id(buf, 0, len - 4, SRC, DST, 55410, 4791);
                    }) / 2;
                    System.out.printf("  payload %5d B: plain CRC32 %7.1f ns | seal (id 0, DF) %7.1f ns | "
                            + "solve id %7.1f ns | solve id, length changing every call %7.1f ns%n",
                            len, crc, seal, solve, solveNewLength);
                }
            }
        }
        System.out.println("(sink " + sink + ")");
    }

    private static final CRC32 PLAIN = new CRC32();

    private static void plainCrc(MemorySegment buf, int len) {
        ByteBuffer bb = buf.asByteBuffer();
        bb.limit(len);
        PLAIN.reset();
        PLAIN.update(bb);
        sink += PLAIN.getValue();
    }

    private static double time(Runnable r) {
        for (int i = 0; i < 200_000; i++) {
            r.run();
        }
        int n = 2_000_000;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            r.run();
        }
        return (System.nanoTime() - t0) / (double) n;
    }
}
