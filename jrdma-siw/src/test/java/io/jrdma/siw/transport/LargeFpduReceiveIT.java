package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.CanaryBuffer;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.DataPattern;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.MemoryKind;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The receive path for streams of large and small FPDUs: a payload of 8 KiB or more that starts with
 * nothing staged is read from the socket straight into its target, everything else goes through the
 * engine's staging buffer, and what a read leaves of a cut header or trailer waits in the QP's carry.
 * A {@link RawPeer} sends WRITEs, SENDs (into two-SGE receives, so a payload is placed chunk by chunk)
 * and READ responses of every size class (1 byte, under and over the direct-read threshold, up to a
 * whole 64 KiB FPDU), with and without CRC, over regions of every kind, and writes the stream to the
 * socket in random cuts with random pauses, so jrdma's reads come back short at every kind of
 * boundary: inside a header, a payload, a trailer, between FPDUs. Every byte must land where the model
 * says, nothing outside (the regions' guards), every receive and READ complete once with its length,
 * and a CRC error in a directly read payload that follows a large FPDU still draws a TERMINATE.
 */
class LargeFpduReceiveIT {
    private static final SiwConfig SIW = SiwConfig.defaults();
    /** The WRITE target. */
    private static final int REGION = 1 << 20;
    /** Receives: each has two SGEs (24 KiB + 40 KiB), so a long SEND payload is placed chunk by chunk. */
    private static final int RECEIVES = 6;
    private static final int RECV_FIRST = 24 * 1024;
    private static final int RECV_BYTES = 64 * 1024;
    /** Payload sizes the streams draw from: both sides of the 8 KiB direct-read threshold, and whole FPDUs. */
    private static final int[] SIZES = {1, 7, 100, 1500, 8191, 8192, 8193, 20_000, 40_000, 65_000, 65_400};
    /** Bounds of the test's waits. */
    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();
    private final List<CanaryBuffer> regions = new ArrayList<>();

    @AfterEach
    void close() {
        tb.close();
        for (CanaryBuffer r : regions) {
            r.close();
        }
        regions.clear(); // a region registered as a direct ByteBuffer is freed by the GC (Hygiene waits for it)
    }

    private CanaryBuffer region(MemoryKind kind, int size, int access) {
        CanaryBuffer b = CanaryBuffer.register(tb.pd, kind, size, access, regions.size() + 1);
        regions.add(b);
        return b;
    }

    private Links.Accepted connected(boolean crc) {
        Links.Accepted a = Links.accept(tb, SIW, MpaRequest.v2(crc, 2, 2, new byte[0]), Testbed.param(2, 2));
        a.up().next("established");
        a.peer().crc(crc);
        return a;
    }

    /**
     * Writes {@code stream} in cuts of 1 byte to 200 KiB, pausing up to 300 us after some of them, so
     * that the receiver's reads end anywhere.
     */
    private static void writeCut(RawPeer p, byte[] stream, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        try {
            OutputStream out = p.socket().getOutputStream();
            int off = 0;
            while (off < stream.length) {
                int n = switch (r.nextInt(4)) {
                    case 0 -> 1 + r.nextInt(40); // inside a header or a trailer
                    case 1 -> 1 + r.nextInt(9000);
                    default -> 1 + r.nextInt(200 * 1024);
                };
                n = Math.min(n, stream.length - off);
                out.write(stream, off, n);
                out.flush();
                off += n;
                if (r.nextInt(3) == 0) {
                    LockSupport.parkNanos(r.nextInt(300_000));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int size(SplittableRandom r) {
        return SIZES[r.nextInt(SIZES.length)];
    }

    @ParameterizedTest(name = "crc {0}, {1} memory, seed {2}")
    @CsvSource({"false, DIRECT_BUFFER, 1", "true, DIRECT_BUFFER, 2", "false, NATIVE, 3", "true, HEAP, 4",
        "false, DIRECT_BUFFER, 5", "true, DIRECT_BUFFER, 6"})
    void writesAndSendsOfEverySizeCutAnywhereArePlacedExactly(boolean crc, MemoryKind kind, long seed) {
        CanaryBuffer target = region(kind, REGION, Testbed.ALL);
        CanaryBuffer rq = region(kind, RECEIVES * RECV_BYTES, Access.LOCAL_WRITE);
        byte[] model = target.snapshot();
        byte[] rqModel = rq.snapshot();
        Links.Accepted a = connected(crc);
        for (int i = 0; i < RECEIVES; i++) {
            long base = (long) i * RECV_BYTES;
            RecvWr wr = new RecvWr(2).wrId(100 + i);
            wr.sge(0).set(rq.mr(), base, RECV_FIRST);
            wr.sge(1).set(rq.mr(), base + RECV_FIRST, RECV_BYTES - RECV_FIRST);
            wr.numSge(2);
            assertThat(a.qp().postRecv(wr)).isEqualTo(1);
        }
        SplittableRandom r = new SplittableRandom(seed);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<Integer> sendLengths = new ArrayList<>();
        int fpdus = 0;
        while (fpdus < 160) {
            boolean send = sendLengths.size() < RECEIVES - 1 && r.nextInt(12) == 0;
            int len = size(r);
            byte[] payload = DataPattern.bytes(seed * 1000 + fpdus, len);
            if (send) {
                int i = sendLengths.size();
                System.arraycopy(payload, 0, rqModel, i * RECV_BYTES, len);
                sendLengths.add(len);
                stream.writeBytes(a.peer().send(payload));
            } else {
                int off = r.nextInt(REGION - len + 1);
                System.arraycopy(payload, 0, model, off, len);
                stream.writeBytes(a.peer().write(target.mr().rkey(), target.addr(off), payload, true));
            }
            fpdus++;
        }
        // The last SEND completes after everything before it was placed (FPDUs are processed in order).
        byte[] last = DataPattern.bytes(seed, 33_333);
        System.arraycopy(last, 0, rqModel, sendLengths.size() * RECV_BYTES, last.length);
        sendLengths.add(last.length);
        stream.writeBytes(a.peer().send(last));
        fpdus++;
        long received = tb.siw.counters().fpdusReceived();

        writeCut(a.peer(), stream.toByteArray(), seed);

        List<Completion> got = Await.completions(tb.cq, sendLengths.size(), WAIT);
        assertThat(got).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(got).extracting(Completion::opcode).containsOnly(WcOpcode.RECV);
        assertThat(got).extracting(Completion::byteLen).containsExactlyElementsOf(sendLengths);
        assertThat(got).extracting(Completion::wrId).containsExactlyElementsOf(
                java.util.stream.LongStream.range(100, 100 + sendLengths.size()).boxed().toList());
        target.assertGuardsIntact();
        rq.assertGuardsIntact();
        assertThat(Arrays.mismatch(target.snapshot(), model)).as("first misplaced byte of the WRITE target")
                .isEqualTo(-1);
        byte[] rqNow = rq.snapshot();
        int used = sendLengths.size() * RECV_BYTES;
        assertThat(Arrays.mismatch(Arrays.copyOf(rqNow, used), Arrays.copyOf(rqModel, used)))
                .as("first misplaced byte of the receives").isEqualTo(-1);
        assertThat(tb.siw.counters().fpdusReceived() - received).isEqualTo(fpdus);
        assertThat(a.qp().state()).isEqualTo(QpState.RTS);
        Await.noCompletion(tb.cq, Duration.ofMillis(50));
    }

    @ParameterizedTest(name = "crc {0}, {1} memory, seed {2}")
    @CsvSource({"false, DIRECT_BUFFER, 11", "true, DIRECT_BUFFER, 12", "false, NATIVE, 13"})
    void readResponsesOfEverySizeCutAnywhereArePlacedExactly(boolean crc, MemoryKind kind, long seed) {
        CanaryBuffer sink = region(kind, REGION, Testbed.ALL);
        byte[] model = sink.snapshot();
        Links.Accepted a = connected(crc);
        SplittableRandom r = new SplittableRandom(seed);
        int[] lengths = {300_000, 65_400, 8192, 1, 123_457};
        long[] offsets = new long[lengths.length];
        long next = 1000;
        for (int i = 0; i < lengths.length; i++) {
            offsets[i] = next;
            next += lengths[i] + 17;
            SendWr rd = new SendWr().wrId(200 + i).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .sg(sink.mr(), offsets[i], lengths[i]).rdma(0x4000_0000L + i * (1L << 20), 0x1234);
            Testbed.post(a.qp(), rd);
        }
        // jrdma's ORD is 2: the later requests go out as the earlier READs complete, so each response
        // is written as soon as its request is read.
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (int i = 0; i < lengths.length; i++) {
            RawPeer.Fpdu req = a.peer().readFpdu();
            assertThat(req.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
            ReadRequestHeader rr = req.readRequest();
            assertThat(rr.readSize()).isEqualTo(lengths[i]);
            assertThat(rr.sinkTo()).isEqualTo(sink.addr(offsets[i]));
            byte[] data = DataPattern.bytes(seed * 100 + i, lengths[i]);
            System.arraycopy(data, 0, model, (int) offsets[i], data.length);
            int done = 0;
            while (done < data.length) {
                int n = Math.min(size(r), data.length - done);
                byte[] piece = Arrays.copyOfRange(data, done, done + n);
                stream.writeBytes(a.peer().readResponse(rr.sinkStag(), rr.sinkTo() + done, piece,
                        done + n == data.length));
                done += n;
            }
            writeCut(a.peer(), stream.toByteArray(), seed + i);
            stream.reset();
        }

        List<Completion> got = Await.completions(tb.cq, lengths.length, WAIT);
        assertThat(got).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(got).extracting(Completion::opcode).containsOnly(WcOpcode.RDMA_READ);
        assertThat(got).extracting(Completion::wrId).containsExactly(200L, 201L, 202L, 203L, 204L);
        sink.assertGuardsIntact();
        assertThat(Arrays.mismatch(sink.snapshot(), model)).as("first misplaced byte of the READ sink")
                .isEqualTo(-1);
        Await.noCompletion(tb.cq, Duration.ofMillis(50));
    }

    /**
     * Two large WRITEs: the first header arrives alone, so the first payload is read straight into the
     * region; the second FPDU follows it in one socket write. A flipped payload bit in the second is a
     * CRC error: TERMINATE, the QP in ERROR, and nothing placed outside the two targets.
     */
    @Test
    void aBadCrcInAPayloadThatFollowsALargeFpduDrawsTerminateAndPlacesOnlyInsideTheTargets() {
        CanaryBuffer target = region(MemoryKind.DIRECT_BUFFER, REGION, Testbed.ALL);
        CanaryBuffer other = region(MemoryKind.DIRECT_BUFFER, 8192, Testbed.ALL);
        byte[] before = target.snapshot();
        byte[] otherBefore = other.snapshot();
        Links.Accepted a = connected(true);
        RawPeer p = a.peer();
        long crcErrors = tb.siw.counters().crcErrors();
        byte[] first = p.write(target.mr().rkey(), target.addr(0), DataPattern.bytes(1, 40_000), true);
        byte[] second = p.write(target.mr().rkey(), target.addr(100_000), DataPattern.bytes(2, 50_000), true);
        second[FpduHeader.TAGGED_LENGTH + 30_000] ^= 0x04;
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        p.writeSplit(both, FpduHeader.TAGGED_LENGTH, 20_000_000L); // the first header alone, then the rest
        Terminate t = p.readTerminate();
        assertThat(t.error()).contains(TermError.MPA_CRC_ERROR);
        assertThat(p.expectClose(0)).isIn("FIN", "RST");
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.siw.counters().crcErrors()).isEqualTo(crcErrors + 1);
        byte[] now = target.snapshot();
        assertThat(Arrays.mismatch(Arrays.copyOfRange(now, 0, 40_000), DataPattern.bytes(1, 40_000)))
                .as("the good first WRITE is placed").isEqualTo(-1);
        target.assertGuardsIntact();
        for (int i = 0; i < now.length; i++) {
            if ((i >= 40_000 && i < 100_000 || i >= 150_000) && now[i] != before[i]) {
                throw new AssertionError("byte " + i + " changed outside both WRITEs");
            }
        }
        other.assertUnchanged(otherBefore);
    }
}
