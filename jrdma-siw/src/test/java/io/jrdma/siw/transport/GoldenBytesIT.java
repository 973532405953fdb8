package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.IwConnParam;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.Golden;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.verbs.WcStatus;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What jrdma puts on the wire, compared byte for byte with the frames Linux siw 6.1 sent in the same
 * situation (src/test/resources/golden): MPA request and replies, SEND, RDMA WRITE, READ request, READ
 * response and TERMINATE. The peer side replays the probe's captured frames; where a field
 * legitimately differs (jrdma's own STag and address in a READ request, siw's MSN bug in a rebuilt READ
 * header) it is masked, and the CRC is checked instead of compared.
 */
class GoldenBytesIT {
    /** siw's segment in the captures: MSS 1460 (1456-byte FPDUs). */
    private static final SiwConfig CAPTURE = SiwConfig.defaults().withMaxSegment(1460);
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    private static byte[] golden(String name) {
        return Golden.get(name).bytes();
    }

    /** Asserts equality outside the masked {offset, length} ranges, naming the first difference. */
    static void assertSameBytes(String what, byte[] ours, byte[] siw, int[]... masks) {
        assertThat(ours).as(what + " length").hasSize(siw.length);
        byte[] a = ours.clone();
        byte[] b = siw.clone();
        for (int[] m : masks) {
            Arrays.fill(a, m[0], m[0] + m[1], (byte) 0);
            Arrays.fill(b, m[0], m[0] + m[1], (byte) 0);
        }
        assertThat(HexFormat.of().formatHex(a)).as(what + " (jrdma vs siw, masked " + Arrays.deepToString(masks) + ")")
                .isEqualTo(HexFormat.of().formatHex(b));
    }

    /** librdmacm's rdma_accept(NULL), as rping -s does: the request's IRD/ORD turned around. */
    private static IwConnParam acceptLikeRping(byte[] request) {
        MpaRequest r = (MpaRequest) Links.decode(request);
        MpaV2Ctrl c = r.v2().orElse(MpaV2Ctrl.of(1, 1));
        return new IwConnParam(new byte[0], c.ird(), c.ord(), 0);
    }

    private Links.Accepted replayRequest(String scenario, SiwConfig config) {
        byte[] req = golden(scenario + ".00.peer.mpa-req.hex");
        Links.Accepted a = Links.accept(tb, config, req, acceptLikeRping(req));
        assertSameBytes(scenario + " MPA reply", a.replyBytes(), golden(scenario + ".01.siw.mpa-rep.hex"));
        return a;
    }

    // ---------------------------------------------------------------------------------- MPA

    @Test
    void theMpaRequestIsSiws() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SiwConfig.defaults(), Testbed.param(1, 1))) {
            assertSameBytes("MPA request", c.requestBytes(), golden("guest-client-rping.00.siw.mpa-req.hex"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-small", "rping-crc", "rping-large", "rping-crc-large", "mpa-v1", "mpa-v2-pdata",
        "mpa-pd256", "term-write-stag", "term-bad-crc", "mpa-depths-huge"})
    void theMpaReplyIsSiws(String scenario) {
        Links.Accepted a = replayRequest(scenario, SiwConfig.defaults());
        a.peer().close();
    }

    /**
     * Markers, and H without room for the v2 block: siw's reject, byte for byte, and no upcall: the next
     * upcall is the request of a connection made after the reject.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mpa-markers", "mpa-markers-v1", "mpa-h-short0", "mpa-h-short2"})
    void theRejectOfARequestSiwCannotTakeIsSiws(String scenario) {
        Upcalls up = new Upcalls();
        var l = tb.listen(tb.cm(SiwConfig.defaults()), up);
        try (RawPeer p = RawPeer.connect(l.localAddress())) {
            p.write(golden(scenario + ".00.peer.mpa-req.hex"));
            assertSameBytes(scenario + " reject", p.readMpaBytes(), golden(scenario + ".01.siw.mpa-rep-reject.hex"));
            assertThat(p.expectClose(0)).isEqualTo("FIN");
        }
        try (RawPeer marker = RawPeer.connect(l.localAddress())) {
            marker.sendMpa(MpaRequest.v2(false, 1, 1, Upcalls.marker()));
            up.nextRequest(Upcalls.marker()).conn().reject(new byte[0]);
        }
    }

    /** The reject siw sends for H without room for the block ends jrdma's connect as a rejection, as it ends siw's. */
    @Test
    void siwsRejectWithoutRoomForTheV2BlockEndsTheConnectAsARejection() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SiwConfig.defaults(), Testbed.param(1, 1))) {
            assertSameBytes("MPA request", c.requestBytes(), golden("guest-client-reject-short.00.siw.mpa-req.hex"));
            c.peer().write(golden("guest-client-reject-short.01.peer.mpa-rep-reject.hex"));
            Links.assertStatus(c.up().next("connectReply"), io.jrdma.verbs.Errno.ECONNREFUSED.status());
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    // ---------------------------------------------------------------------------------- data FPDUs

    /** The payload of a captured FPDU. */
    private static byte[] payload(String name) {
        return new RawPeer.Fpdu(golden(name)).payload();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void sendsAreSiws(boolean crc) {
        String s = crc ? "rping-crc" : "rping-small";
        Links.Accepted a = replayRequest(s, SiwConfig.defaults());
        a.up().next("established");
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        String first = s + ".05.siw.send.hex";
        String second = s + ".08.siw.send.hex";
        b.segment().asSlice(0, 16).copyFrom(MemorySegment.ofArray(payload(first)));
        b.segment().asSlice(100, 16).copyFrom(MemorySegment.ofArray(payload(second)));
        Testbed.post(a.qp(), Testbed.send(1, b, 0, payload(first).length));
        Testbed.post(a.qp(), Testbed.send(2, b, 100, payload(second).length));
        a.peer().crc(crc);
        assertSameBytes(first, a.peer().readFpdu().bytes(), golden(first));
        assertSameBytes(second, a.peer().readFpdu().bytes(), golden(second));
        a.peer().close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-small.07", "rping-crc.07", "rping-large.10", "rping-crc-large.09"})
    void writesAreSiwsSegmentForSegment(String firstFrame) {
        String scenario = firstFrame.substring(0, firstFrame.lastIndexOf('.'));
        int index = Integer.parseInt(firstFrame.substring(firstFrame.lastIndexOf('.') + 1));
        List<Golden.Fixture> frames = Golden.scenario(scenario).stream()
                .filter(f -> f.fromSiw() && f.kind().equals("write") && f.index() >= index).toList();
        Links.Accepted a = replayRequest(scenario, CAPTURE);
        a.up().next("established");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Golden.Fixture f : frames) {
            data.writeBytes(new RawPeer.Fpdu(f.bytes()).payload());
        }
        byte[] all = data.toByteArray();
        Testbed.Buffer b = tb.buffer(all.length, Testbed.ALL);
        b.segment().copyFrom(MemorySegment.ofArray(all));
        FpduHeader h = new RawPeer.Fpdu(frames.getFirst().bytes()).header();
        Testbed.post(a.qp(), Testbed.write(1, b, 0, all.length, h.stag(), h.taggedOffset()));
        a.peer().crc(frames.getFirst().crc());
        for (Golden.Fixture f : frames) {
            assertSameBytes(f.name(), a.peer().readFpdu().bytes(), f.bytes());
            if (new RawPeer.Fpdu(f.bytes()).header().last()) {
                break;
            }
        }
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        a.peer().close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theReadRequestIsSiwsButForJrdmasSinkStagAndAddress(boolean crc) {
        String name = crc ? "rping-crc.03.siw.read-req.hex" : "rping-small.03.siw.read-req.hex";
        Links.Accepted a = replayRequest(crc ? "rping-crc" : "rping-small", SiwConfig.defaults());
        a.up().next("established");
        ReadRequestHeader siw = new RawPeer.Fpdu(golden(name)).readRequest();
        Testbed.Buffer sink = tb.buffer(4096, Testbed.ALL);
        Testbed.post(a.qp(), Testbed.read(1, sink, 0, siw.readSize(), siw.sourceStag(), siw.sourceTo()));
        RawPeer.Fpdu ours = a.peer().crc(crc).readFpdu();
        int[] sinkFields = {ReadRequestHeader.SINK_STAG_OFFSET, 12};
        int[] trailer = {ReadRequestHeader.LENGTH, FpduHeader.CRC_LENGTH};
        assertSameBytes(name, ours.bytes(), golden(name), sinkFields, trailer);
        assertThat(ours.readRequest().sinkStag()).isEqualTo(sink.mr().lkey());
        assertThat(ours.readRequest().sinkTo()).isEqualTo(sink.addr(0));
        a.peer().close();
    }

    @Test
    void readResponsesAreSiwsSegmentForSegment() {
        // siw answered the probe's 8000-byte READ (guest-client-rping.03) with 5 x 1436 + 820.
        List<Golden.Fixture> resp = Golden.scenario("guest-client-rping").stream()
                .filter(f -> f.kind().equals("read-resp")).toList();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Golden.Fixture f : resp) {
            data.writeBytes(new RawPeer.Fpdu(f.bytes()).payload());
        }
        byte[] all = data.toByteArray();
        Links.Accepted a = Links.accept(tb, CAPTURE, MpaRequest.v2(false, 1, 1, new byte[0]), Testbed.param(1, 1));
        a.up().next("established");
        Testbed.Buffer src = tb.buffer(all.length, Testbed.ALL);
        src.segment().copyFrom(MemorySegment.ofArray(all));
        byte[] req = golden("guest-client-rping.03.peer.read-req.hex").clone();
        new ReadRequestHeader().wrap(MemorySegment.ofArray(req), 0).sourceStag(src.mr().rkey())
                .sourceTo(src.addr(0));
        a.peer().write(req);
        for (Golden.Fixture f : resp) {
            assertSameBytes(f.name(), a.peer().readFpdu().bytes(), f.bytes());
        }
        a.peer().close();
    }

    // ---------------------------------------------------------------------------------- TERMINATE

    @ParameterizedTest
    @ValueSource(strings = {"term-write-stag", "term-write-stag-crc", "term-send-msn", "term-send-qn",
        "term-read-msn", "term-opcode", "term-ddp-version", "term-rdmap-version", "term-bad-crc", "term-read-stag"})
    void theTerminateForEachCapturedErrorIsSiws(String scenario) {
        List<Golden.Fixture> frames = Golden.scenario(scenario);
        Links.Accepted a = replayRequest(scenario, SiwConfig.defaults());
        a.up().next("established");
        Testbed.Buffer b = tb.buffer(4096, Testbed.ALL);
        Testbed.recv(a.qp(), 1, b, 0, 4096);
        Golden.Fixture offender = frames.stream().filter(f -> !f.isMpa() && !f.fromSiw()).findFirst().orElseThrow();
        Golden.Fixture term = frames.stream().filter(f -> f.kind().equals("terminate")).findFirst().orElseThrow();
        a.peer().write(offender.bytes());
        a.peer().crc(term.crc());
        byte[] ours = a.peer().readFpdu().bytes();
        if (scenario.equals("term-read-stag")) {
            // siw rebuilds the READ header from its queue and puts the read size where the MSN goes; jrdma
            // copies the request it received (MSN 1).
            int msn = io.jrdma.siw.wire.TerminateHeader.DDP_HEADER_OFFSET + FpduHeader.MSN_OFFSET
                    - FpduHeader.MPA_LENGTH_FIELD_LENGTH;
            assertSameBytes(term.name(), ours, term.bytes(), new int[] {msn, 4});
            assertThat(ours[msn + 3]).isEqualTo((byte) 1);
        } else {
            assertSameBytes(term.name(), ours, term.bytes());
        }
        if (term.crc()) {
            assertThat(new MpaCrc().verify(MemorySegment.ofArray(ours), 0)).isTrue();
        }
    }

    @Test
    void theMpaPhaseTerminatesAreSiws() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SiwConfig.defaults(), Testbed.param(1, 1))) {
            c.peer().write(golden("guest-client-ord-huge.01.peer.mpa-rep.hex"));
            assertSameBytes("insufficient IRD", c.peer().read(28),
                    golden("guest-client-ord-huge.02.siw.terminate.hex"));
        }
        try (Links.Connecting c = Links.connect(tb, SiwConfig.defaults(), Testbed.param(1, 1))) {
            c.peer().write(golden("guest-client-bad-key.01.peer.mpa-badkey.hex"));
            assertSameBytes("invalid reply", c.peer().read(28), golden("guest-client-bad-key.02.siw.terminate.hex"));
        }
        // The reply siw accepted from the probe as responder to its own request, for completeness.
        assertThat(Links.decode(golden("guest-client-rping.01.peer.mpa-rep.hex"))).isEqualTo(
                new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
    }
}
