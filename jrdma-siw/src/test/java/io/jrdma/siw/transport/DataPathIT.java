package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The DDP/RDMAP data path (RFC 5041, RFC 5040) between jrdma and a raw peer over TCP on 127.0.0.1:
 * segmentation at the segment size, any FPDU size and any TCP boundary accepted on receive, in-order
 * reassembly by MO and TO, the four SEND variants, RDMA WRITE and READ in both directions.
 */
class DataPathIT {
    /** No exception escapes, nothing is logged at WARNING, nothing leaks (issue 6). */
    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    private Links.Accepted connected(SiwConfig config, boolean crc) {
        Links.Accepted a = Links.accept(tb, config, MpaRequest.v2(crc, 4, 4, new byte[0]), Testbed.param(4, 4));
        a.up().next("established");
        a.peer().crc(crc);
        return a;
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 31);
        }
        return b;
    }

    private static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    // ---------------------------------------------------------------------------------- segmentation

    @Test
    void messagesAreCutIntoFpdusOfTheSegmentSize() {
        Links.Accepted a = connected(SiwConfig.defaults().withMaxSegment(256), false);
        Testbed.Buffer b = tb.buffer(8192, Testbed.ALL);
        b.segment().copyFrom(MemorySegment.ofArray(pattern(8192, 3)));
        // SEND: 256 = 20 header + 232 payload + 4 CRC; MO advances, one MSN, L on the last only.
        Testbed.post(a.qp(), Testbed.send(1, b, 0, 1000));
        List<RawPeer.Fpdu> send = a.peer().readMessage();
        assertThat(send).hasSize(5);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        for (int i = 0; i < send.size(); i++) {
            RawPeer.Fpdu f = send.get(i);
            assertThat(f.opcode()).isEqualTo(RdmapOpcode.SEND);
            assertThat(f.header().messageSequenceNumber()).isEqualTo(1);
            assertThat(f.header().messageOffset()).isEqualTo(232 * i);
            assertThat(f.header().last()).isEqualTo(i == 4);
            if (i < 4) {
                assertThat(f.bytes()).hasSize(256);
            }
            got.writeBytes(f.payload());
        }
        assertThat(got.toByteArray()).isEqualTo(bytes(b.segment(), 0, 1000));
        // WRITE: 256 = 16 + 236 + 4; the TO advances.
        Testbed.post(a.qp(), Testbed.write(2, b, 0, 1000, 0xABCD, 0x10_0000));
        List<RawPeer.Fpdu> write = a.peer().readMessage();
        assertThat(write).hasSize(5);
        for (int i = 0; i < write.size(); i++) {
            assertThat(write.get(i).header().stag()).isEqualTo(0xABCD);
            assertThat(write.get(i).header().taggedOffset()).isEqualTo(0x10_0000 + 236L * i);
            assertThat(write.get(i).payload()).hasSize(i < 4 ? 236 : 1000 - 4 * 236);
        }
        // READ response to the peer's request: the same tagged segments.
        a.peer().write(a.peer().readRequest(0x77, 0x5000, 600, b.mr().rkey(), b.addr(100)));
        List<RawPeer.Fpdu> resp = a.peer().readMessage();
        assertThat(resp).extracting(f -> f.payload().length).containsExactly(236, 236, 128);
        assertThat(resp).extracting(f -> f.header().taggedOffset()).containsExactly(0x5000L, 0x5000L + 236,
                0x5000L + 472);
        assertThat(tb.completion().wrId()).isEqualTo(1);
        assertThat(tb.completion().wrId()).isEqualTo(2);
        a.peer().close();
    }

    @Test
    void withoutAConfiguredSizeFpdusFillTheLoopbackMss() throws Exception {
        int mtu = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1")).getMTU();
        int segment = Math.min((mtu - 52) & ~7, FpduHeader.MAX_MPA_LENGTH + 2) & ~7;
        Links.Accepted a = connected(SiwConfig.defaults(), false);
        int len = 3 * segment;
        Testbed.Buffer b = tb.buffer(len, Testbed.ALL);
        Testbed.post(a.qp(), Testbed.write(1, b, 0, len, 0x42, 0));
        List<RawPeer.Fpdu> write = a.peer().readMessage();
        assertThat(write.getFirst().bytes()).as("siw_update_tcpseg: (MSS) & ~7, MSS = MTU %d - 52", mtu)
                .hasSize(segment);
        assertThat(write.stream().mapToInt(f -> f.payload().length).sum()).isEqualTo(len);
        a.peer().close();
    }

    // ---------------------------------------------------------------------------------- receive framing

    /**
     * One unit of traffic with odd sizes (so every pad length appears): a SEND in two segments of 13 and
     * 6 bytes, an RDMA WRITE of 7 bytes, an RDMA READ request of 5 bytes.
     */
    private static byte[] unit(RawPeer p, Testbed.Buffer target, int round) {
        byte[] s = pattern(19, round);
        ByteArrayOutputStream u = new ByteArrayOutputStream();
        u.writeBytes(p.sendSegment(RdmapOpcode.SEND, 0, Arrays.copyOf(s, 13), false, 0));
        u.writeBytes(p.sendSegment(RdmapOpcode.SEND, 13, Arrays.copyOfRange(s, 13, 19), true, 0));
        u.writeBytes(p.write(target.mr().rkey(), target.addr(8L * (round % 64)), pattern(7, round + 1), true));
        u.writeBytes(p.readRequest(0x60, round, 5, target.mr().rkey(), target.addr(1000)));
        return u.toByteArray();
    }

    @ParameterizedTest(name = "crc {0}")
    @ValueSource(booleans = {false, true})
    void anyFpduSizeIsAcceptedWithTheStreamCutAtEveryByteBoundary(boolean crc) {
        Links.Accepted a = connected(SiwConfig.defaults(), crc);
        Testbed.Buffer recv = tb.buffer(64 * 64, Testbed.ALL);
        Testbed.Buffer target = tb.buffer(4096, Testbed.ALL);
        target.segment().asSlice(1000, 5).copyFrom(MemorySegment.ofArray(new byte[] {9, 8, 7, 6, 5}));
        int len = FpduHeader.fpduLength(RdmapOpcode.SEND, 13) + FpduHeader.fpduLength(RdmapOpcode.SEND, 6)
                + FpduHeader.fpduLength(RdmapOpcode.RDMA_WRITE, 7)
                + FpduHeader.fpduLength(RdmapOpcode.RDMA_READ_REQUEST, 0);
        assertThat(len).as("pads of 3, 2 and 1 bytes").isEqualTo(40 + 32 + 28 + 52);
        for (int cut = 1; cut < len; cut++) {
            int round = cut;
            Testbed.recv(a.qp(), round, recv, 64L * (round % 64), 64);
            a.peer().writeSplit(unit(a.peer(), target, round), cut, 300_000);
            RawPeer.Fpdu resp = a.peer().readFpdu();
            assertThat(resp.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
            assertThat(resp.header().taggedOffset()).as("cut %d", cut).isEqualTo(round);
            assertThat(resp.payload()).isEqualTo(new byte[] {9, 8, 7, 6, 5});
            Completion c = tb.completion();
            assertThat(c.wrId()).as("cut %d", cut).isEqualTo(round);
            assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(c.byteLen()).isEqualTo(19);
            assertThat(bytes(recv.segment(), 64L * (round % 64), 19)).as("cut %d", cut).isEqualTo(pattern(19, round));
            assertThat(bytes(target.segment(), 8L * (round % 64), 7)).isEqualTo(pattern(7, round + 1));
        }
        a.peer().close();
    }

    // ---------------------------------------------------------------------------------- reassembly

    @Test
    void segmentsAreReassembledInOrderAcrossSges() {
        Links.Accepted a = connected(SiwConfig.defaults(), false);
        Testbed.Buffer b = tb.buffer(8192, Testbed.ALL);
        RecvWr r = new RecvWr().wrId(1).numSge(3);
        r.sge(0).set(b.mr(), 0, 10);
        r.sge(1).set(b.mr(), 1000, 25);
        r.sge(2).set(b.mr(), 2000, 100);
        assertThat(a.qp().postRecv(r)).isEqualTo(1);
        byte[] msg = pattern(90, 5);
        RawPeer p = a.peer();
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        int[] cuts = {0, 7, 30, 31, 90};
        for (int i = 0; i + 1 < cuts.length; i++) {
            s.writeBytes(p.sendSegment(RdmapOpcode.SEND, cuts[i], Arrays.copyOfRange(msg, cuts[i], cuts[i + 1]),
                    i + 2 == cuts.length, 0));
        }
        byte[] w = pattern(50, 6);
        s.writeBytes(p.write(b.mr().rkey(), b.addr(4000), Arrays.copyOf(w, 21), false));
        s.writeBytes(p.write(b.mr().rkey(), b.addr(4021), Arrays.copyOfRange(w, 21, 22), false));
        s.writeBytes(p.write(b.mr().rkey(), b.addr(4022), Arrays.copyOfRange(w, 22, 50), true));
        p.write(s.toByteArray());
        assertThat(tb.completion().byteLen()).isEqualTo(90);
        assertThat(bytes(b.segment(), 0, 10)).isEqualTo(Arrays.copyOfRange(msg, 0, 10));
        assertThat(bytes(b.segment(), 1000, 25)).isEqualTo(Arrays.copyOfRange(msg, 10, 35));
        assertThat(bytes(b.segment(), 2000, 55)).isEqualTo(Arrays.copyOfRange(msg, 35, 90));
        Await.until("the WRITE placed", Duration.ofSeconds(5), () -> Arrays.equals(bytes(b.segment(), 4000, 50), w));
        p.close();
    }

    // ---------------------------------------------------------------------------------- SEND variants

    @Test
    void theFourSendVariantsArriveWithTheirSolicitedAndInvalidateSemantics() throws Exception {
        Links.Accepted a = connected(SiwConfig.defaults(), false);
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.Buffer inv1 = tb.buffer(4096, Testbed.ALL);
        Testbed.Buffer inv2 = tb.buffer(4096, Testbed.ALL);
        for (int i = 1; i <= 4; i++) {
            Testbed.recv(a.qp(), i, b, 100L * i, 100);
        }
        RawPeer p = a.peer();
        CompletionQueue cq = tb.cq;
        cq.requestNotify(true);
        p.write(p.sendSegment(RdmapOpcode.SEND, 0, pattern(3, 1), true, 0));
        Completion plain = tb.completion();
        assertThat(tb.channel.getEvent(Duration.ofMillis(150))).as("a plain SEND is not solicited").isNull();
        p.write(p.sendSegment(RdmapOpcode.SEND_SE, 0, pattern(4, 2), true, 0));
        assertThat(tb.channel.getEvent(Duration.ofSeconds(5))).as("SEND_SE wakes a solicited-only waiter")
                .isSameAs(cq);
        tb.channel.ackEvents(cq, 1);
        Completion se = tb.completion();
        p.write(p.sendSegment(RdmapOpcode.SEND_INVALIDATE, 0, pattern(5, 3), true, inv1.mr().rkey()));
        Completion inv = tb.completion();
        p.write(p.sendSegment(RdmapOpcode.SEND_SE_INVALIDATE, 0, pattern(6, 4), true, inv2.mr().rkey()));
        Completion seInv = tb.completion();
        assertThat(List.of(plain, se, inv, seInv)).extracting(Completion::wrId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(List.of(plain, se, inv, seInv)).extracting(Completion::byteLen).containsExactly(3, 4, 5, 6);
        assertThat(List.of(plain, se, inv, seInv)).extracting(Completion::opcode).containsOnly(WcOpcode.RECV);
        assertThat(plain.hasInv()).isFalse();
        assertThat(inv.hasInv()).isTrue();
        assertThat(inv.immOrInvalidate()).isEqualTo(inv1.mr().rkey());
        assertThat(seInv.immOrInvalidate()).isEqualTo(inv2.mr().rkey());
        assertThat(inv1.mr().isValid()).isFalse();
        assertThat(inv2.mr().isValid()).isFalse();
        assertThat(b.mr().isValid()).isTrue();
        p.close();
    }

    @Test
    void jrdmaSendsTheFourSendVariantsWithTheirOpcodesAndInvalidateStag() {
        Links.Accepted a = connected(SiwConfig.defaults(), false);
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        SendWr plain = Testbed.send(1, b, 0, 8);
        SendWr se = Testbed.send(2, b, 0, 8).flags(SendFlags.SIGNALED | SendFlags.SOLICITED);
        SendWr inv = Testbed.send(3, b, 0, 8).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(0x1234_5601);
        SendWr seInv = Testbed.send(4, b, 0, 8).opcode(WrOpcode.SEND_WITH_INV)
                .flags(SendFlags.SIGNALED | SendFlags.SOLICITED).invalidateRkey(0x1234_5602);
        for (SendWr w : List.of(plain, se, inv, seInv)) {
            Testbed.post(a.qp(), w);
        }
        RdmapOpcode[] ops = {RdmapOpcode.SEND, RdmapOpcode.SEND_SE, RdmapOpcode.SEND_INVALIDATE,
            RdmapOpcode.SEND_SE_INVALIDATE};
        int[] stags = {0, 0, 0x1234_5601, 0x1234_5602};
        for (int i = 0; i < 4; i++) {
            RawPeer.Fpdu f = a.peer().readFpdu();
            assertThat(f.opcode()).isEqualTo(ops[i]);
            assertThat(f.header().invalidateStag()).isEqualTo(stags[i]);
            assertThat(f.header().messageSequenceNumber()).as("MSNs count SENDs on queue 0").isEqualTo(i + 1);
            assertThat(f.header().queueNumber()).isZero();
        }
        assertThat(Await.completions(tb.cq, 4)).extracting(Completion::status).containsOnly(WcStatus.SUCCESS);
        a.peer().close();
    }

    // ---------------------------------------------------------------------------------- WRITE and READ

    @Test
    void rdmaWriteAndReadWorkBothWays() {
        Links.Accepted a = connected(SiwConfig.defaults(), false);
        Testbed.Buffer b = tb.buffer(8192, Testbed.ALL);
        b.segment().asSlice(4096, 100).copyFrom(MemorySegment.ofArray(pattern(100, 8)));
        RawPeer p = a.peer();
        // The peer writes into jrdma's region: placed, no completion.
        p.write(p.write(b.mr().rkey(), b.addr(10), pattern(33, 1), true));
        Await.until("the WRITE placed", Duration.ofSeconds(5),
                () -> Arrays.equals(bytes(b.segment(), 10, 33), pattern(33, 1)));
        Await.noCompletion(tb.cq, Await.QUIET);
        // The peer reads from jrdma's region.
        p.write(p.readRequest(0x99, 0xAA00, 100, b.mr().rkey(), b.addr(4096)));
        RawPeer.Fpdu resp = p.readFpdu();
        assertThat(resp.header().stag()).isEqualTo(0x99);
        assertThat(resp.header().taggedOffset()).isEqualTo(0xAA00);
        assertThat(resp.payload()).isEqualTo(pattern(100, 8));
        // jrdma writes to the peer.
        Testbed.post(a.qp(), Testbed.write(1, b, 4096, 100, 0x5151, 0x7000));
        RawPeer.Fpdu w = p.readFpdu();
        assertThat(w.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(w.header().stag()).isEqualTo(0x5151);
        assertThat(w.header().taggedOffset()).isEqualTo(0x7000);
        assertThat(w.payload()).isEqualTo(pattern(100, 8));
        assertThat(tb.completion().opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        // jrdma reads from the peer: the response lands in the sink, the READ completes with its length.
        Testbed.post(a.qp(), Testbed.read(2, b, 6000, 64, 0x6262, 0x9000));
        RawPeer.Fpdu rr = p.readFpdu();
        assertThat(rr.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
        assertThat(rr.header().queueNumber()).isEqualTo(1);
        assertThat(rr.header().messageSequenceNumber()).isEqualTo(1);
        assertThat(rr.readRequest().sourceStag()).isEqualTo(0x6262);
        assertThat(rr.readRequest().sourceTo()).isEqualTo(0x9000);
        assertThat(rr.readRequest().readSize()).isEqualTo(64);
        assertThat(rr.readRequest().sinkStag()).isEqualTo(b.mr().lkey());
        assertThat(rr.readRequest().sinkTo()).isEqualTo(b.addr(6000));
        p.write(p.readResponse(rr.readRequest().sinkStag(), rr.readRequest().sinkTo(), pattern(30, 2), false));
        p.write(p.readResponse(rr.readRequest().sinkStag(), rr.readRequest().sinkTo() + 30, pattern(34, 3), true));
        Completion c = tb.completion();
        assertThat(c.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(c.byteLen()).isEqualTo(64);
        assertThat(bytes(b.segment(), 6000, 30)).isEqualTo(pattern(30, 2));
        assertThat(bytes(b.segment(), 6030, 34)).isEqualTo(pattern(34, 3));
        p.close();
    }

    /**
     * An IRQ slot is free once the last byte of its READ response is on the wire, even while the rest of
     * the transmit batch waits for socket space: the peer may reuse the ORD credit at that moment. With IRD
     * 3 the peer asks for a big response, a small one and another big one, with a small window so jrdma's
     * writes block. The batch that ends the first response also carries the small one and the start of the
     * third; once the peer has the small one it sends a fourth READ. That is legal (two responses
     * finished), so no TERMINATE may come and every response must arrive whole. Before the fix jrdma freed
     * slots only when a whole batch was written and answered the fourth READ with TERMINATE (RDMAP
     * catastrophic, IRQ overflow): the read-bw failures at 128 outstanding 64 KiB READs.
     */
    @ParameterizedTest(name = "direct buffer region {0}")
    @ValueSource(booleans = {false, true})
    void aReadResponseFreesItsIrqSlotOnceWrittenWhileTheBatchStillBlocks(boolean direct) {
        Links.Accepted a = Links.accept(tb, SiwConfig.defaults(), MpaRequest.v2(false, 3, 3, new byte[0]),
                Testbed.param(3, 3), 8192);
        a.up().next("established");
        // A small send buffer on jrdma's socket (set on its channel: siw has no such knob) so that a
        // batch cannot all fit into the socket while the peer does not read.
        shrinkSendBuffer(a.qp(), 16 << 10);
        int big1 = (1 << 20) + 300_000;
        int big3 = 4 << 20;
        Testbed.Buffer b = tb.buffer(12 << 20, Testbed.ALL, direct);
        long zeroCopy = tb.siw.counters().zeroCopyFpdusSent();
        for (long off = 0; off < b.segment().byteSize(); off += 1 << 16) {
            b.segment().asSlice(off, 1 << 16).copyFrom(MemorySegment.ofArray(pattern(1 << 16, (int) (off >> 16))));
        }
        RawPeer p = a.peer();
        int rkey = b.mr().rkey();
        ByteArrayOutputStream three = new ByteArrayOutputStream();
        three.writeBytes(p.readRequest(0x11, 0, big1, rkey, b.addr(0)));
        three.writeBytes(p.readRequest(0x22, 0, 64, rkey, b.addr(5 << 20)));
        three.writeBytes(p.readRequest(0x33, 0, big3, rkey, b.addr(6 << 20)));
        p.write(three.toByteArray());
        readResponse(p, 0x11, big1, b, 0);
        readResponse(p, 0x22, 64, b, 5 << 20);
        // jrdma is blocked in the middle of the third response, in the batch that ended the first two.
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        p.write(p.readRequest(0x44, 0, 100, rkey, b.addr(100)));
        readResponse(p, 0x33, big3, b, 6 << 20);
        readResponse(p, 0x44, 100, b, 100);
        assertThat(a.qp().state()).isEqualTo(io.jrdma.verbs.QpState.RTS);
        // A direct buffer's responses went out from the region (partial gathering writes included).
        long sentFromRegion = tb.siw.counters().zeroCopyFpdusSent() - zeroCopy;
        if (direct) {
            assertThat(sentFromRegion).isGreaterThanOrEqualTo((big1 + big3) / FpduHeader.MAX_MPA_LENGTH);
        } else {
            assertThat(sentFromRegion).isZero();
        }
        p.close();
    }

    /**
     * Large payloads of a region registered as a direct ByteBuffer go to TCP from the region: one
     * gathering write of the batch's headers, pads and CRCs and views of the region (TxBatch). The raw
     * peer checks every FPDU (header, zero pad, CRC or zero trailer) and the bytes; the counter says
     * which FPDUs took that path: every FPDU of 16 KiB or more whose payload is one piece of a direct
     * region, and no other (a payload that crosses into a segment region's SGE is copied, as is a small
     * one).
     */
    @ParameterizedTest(name = "crc {0}")
    @ValueSource(booleans = {false, true})
    void largePayloadsOfADirectBufferRegionAreWrittenFromTheRegion(boolean crc) {
        Links.Accepted a = connected(SiwConfig.defaults(), crc);
        int len = 300_001;
        Testbed.Buffer d = tb.directBuffer(len + 64, Testbed.ALL);
        d.segment().asSlice(0, len).copyFrom(MemorySegment.ofArray(pattern(len, 5)));
        Testbed.Buffer seg = tb.buffer(20_000, Testbed.ALL);
        seg.segment().copyFrom(MemorySegment.ofArray(pattern(20_000, 9)));
        long zeroCopy = tb.siw.counters().zeroCopyFpdusSent();
        RawPeer p = a.peer();
        int writeLen = 250_000;
        Testbed.post(a.qp(), Testbed.write(1, d, 3, writeLen, 0x5151, 0x7000));
        Testbed.post(a.qp(), Testbed.send(2, d, 1_000, 20_000));
        SendWr two = new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED);
        two.sge(0).set(d.mr(), 100, 30_000);
        two.sge(1).set(seg.mr(), 0, 20_000);
        Testbed.post(a.qp(), two.numSge(2));
        Testbed.post(a.qp(), Testbed.write(4, d, 7, 1_000, 0x5151, 0x1000));
        byte[] all = pattern(len, 5);

        List<RawPeer.Fpdu> write = p.readMessage();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long expectZeroCopy = 0;
        for (RawPeer.Fpdu f : write) {
            assertThat(f.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
            assertThat(f.header().taggedOffset()).isEqualTo(0x7000 + got.size());
            got.writeBytes(f.payload());
            expectZeroCopy += f.payload().length >= 16 * 1024 ? 1 : 0;
        }
        assertThat(write).hasSizeGreaterThan(1);
        assertThat(got.toByteArray()).isEqualTo(Arrays.copyOfRange(all, 3, 3 + writeLen));
        List<RawPeer.Fpdu> send = p.readMessage();
        assertThat(send).hasSize(1);
        assertThat(send.get(0).payload()).isEqualTo(Arrays.copyOfRange(all, 1_000, 21_000));
        expectZeroCopy++;
        List<RawPeer.Fpdu> mixed = p.readMessage();
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        mixed.forEach(f -> m.writeBytes(f.payload()));
        ByteArrayOutputStream want = new ByteArrayOutputStream();
        want.writeBytes(Arrays.copyOfRange(all, 100, 30_100));
        want.writeBytes(pattern(20_000, 9));
        assertThat(m.toByteArray()).isEqualTo(want.toByteArray());
        RawPeer.Fpdu small = p.readFpdu();
        assertThat(small.payload()).isEqualTo(Arrays.copyOfRange(all, 7, 1_007));
        for (int i = 1; i <= 4; i++) {
            Completion c = tb.completion();
            assertThat(c.wrId()).isEqualTo(i);
            assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(tb.siw.counters().zeroCopyFpdusSent() - zeroCopy).isEqualTo(expectZeroCopy);
        p.close();
    }

    private static void shrinkSendBuffer(io.jrdma.internal.verbs.QpImpl qp, int bytes) {
        try {
            java.lang.reflect.Method f = SiwQp.class.getDeclaredMethod("channel");
            f.setAccessible(true);
            ((SocketChannel) f.invoke(qp.provider())).setOption(StandardSocketOptions.SO_SNDBUF, bytes);
        } catch (ReflectiveOperationException | java.io.IOException e) {
            throw new AssertionError("cannot shrink jrdma's send buffer", e);
        }
    }

    /** Reads one READ response for sink {@code stag} and checks it carries {@code len} bytes of {@code src}. */
    private static void readResponse(RawPeer p, int stag, int len, Testbed.Buffer src, long srcOff) {
        long got = 0;
        int fpdus = 0;
        boolean last = false;
        while (!last) {
            RawPeer.Fpdu f = p.readFpdu();
            assertThat(f.opcode()).as("FPDU %d of the response to sink 0x%x", fpdus, stag)
                    .isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
            assertThat(f.header().stag()).isEqualTo(stag);
            assertThat(f.header().taggedOffset()).isEqualTo(got);
            assertThat(f.payload()).isEqualTo(bytes(src.segment(), srcOff + got, f.payload().length));
            got += f.payload().length;
            last = f.header().last();
            fpdus++;
        }
        assertThat(got).isEqualTo(len);
    }

    /**
     * A QP that stops receiving on its budget resumes by itself: the FPDUs it already pulled into its
     * staging buffer get no readiness event of their own. With a budget of one byte jrdma stops after every
     * FPDU; ten SENDs written at once (one read takes them all) must still all complete. Before the fix
     * the rest waited for bytes the peer never sent (the demo's 1 MiB send-bw stalled that way once in a
     * dozen runs, with the 4 MiB budget).
     */
    @Test
    void aQpThatRanOutOfReceiveBudgetFinishesWhatItHasStaged() {
        String key = "jrdma.siw.rxBudgetBytes";
        System.setProperty(key, "1");
        Links.Accepted a;
        try {
            a = connected(SiwConfig.defaults(), true);
        } finally {
            System.clearProperty(key);
        }
        Testbed.Buffer b = tb.buffer(10 * 64, Testbed.ALL);
        for (int i = 0; i < 10; i++) {
            Testbed.recv(a.qp(), 100 + i, b, i * 64L, 64);
        }
        RawPeer p = a.peer();
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        for (int i = 0; i < 10; i++) {
            s.writeBytes(p.send(pattern(40, i)));
        }
        p.write(s.toByteArray());
        for (int i = 0; i < 10; i++) {
            Completion c = tb.completion();
            assertThat(c.wrId()).isEqualTo(100 + i);
            assertThat(c.byteLen()).isEqualTo(40);
            assertThat(bytes(b.segment(), i * 64L, 40)).isEqualTo(pattern(40, i));
        }
        p.close();
    }

    @ParameterizedTest(name = "crc {0}")
    @ValueSource(booleans = {false, true})
    void aLargeSendIsReadStraightIntoTheReceiveBuffer(boolean crc) {
        Links.Accepted a = connected(SiwConfig.defaults(), crc);
        int len = 300_000;
        Testbed.Buffer b = tb.buffer(len, Testbed.ALL);
        Testbed.recv(a.qp(), 1, b, 0, len);
        byte[] msg = pattern(len, 4);
        RawPeer p = a.peer();
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        int seg = 65_000;
        for (int off = 0; off < len; off += seg) {
            int n = Math.min(seg, len - off);
            s.writeBytes(p.sendSegment(RdmapOpcode.SEND, off, Arrays.copyOfRange(msg, off, off + n), off + n == len,
                    0));
        }
        p.write(s.toByteArray());
        assertThat(tb.completion().byteLen()).isEqualTo(len);
        assertThat(bytes(b.segment(), 0, len)).isEqualTo(msg);
        p.close();
    }
}
