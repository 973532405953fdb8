package io.jrdma.siw.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every captured connection direction as a byte stream, decoded the way a transport would: the MPA frame,
 * then FPDUs framed by ULPDU_Length, checked, CRC-verified when negotiated, TERMINATEs decoded. The same
 * stream cut at every byte boundary (and fed a byte at a time) must give the same frames, and nothing is
 * consumed before a frame is complete. Every decoded frame jrdma could send itself is re-encoded and must
 * give the captured bytes.
 */
class GoldenStreamTest {

    record Direction(String scenario, String from, boolean crc) {
        @Override
        public String toString() {
            return scenario + " from " + from;
        }
    }

    static List<Direction> directions() {
        List<Direction> out = new ArrayList<>();
        for (String s : Golden.scenarios()) {
            boolean crc = Golden.scenario(s).getFirst().crc();
            for (String from : new String[] {"siw", "peer"}) {
                if (Golden.stream(s, from).length > 0) {
                    out.add(new Direction(s, from, crc));
                }
            }
        }
        return out;
    }

    /** A transport-like decoder over an accumulating buffer: results as strings, for comparison. */
    static final class Decoder {
        private final boolean crcOn;
        private final MpaCrc crc = new MpaCrc();
        private final MemorySegment buf;
        private final List<String> out = new ArrayList<>();
        private int filled;
        private int consumed;
        private boolean mpaDone;
        private boolean stopped;

        Decoder(int capacity, boolean crcOn) {
            this.buf = MemorySegment.ofArray(new byte[capacity]);
            this.crcOn = crcOn;
        }

        void feed(byte[] chunk, int off, int len) {
            MemorySegment.copy(MemorySegment.ofArray(chunk), off, buf, filled, len);
            filled += len;
            while (!stopped && step()) {
                // keep decoding complete frames
            }
        }

        private boolean step() {
            int avail = filled - consumed;
            if (!mpaDone) {
                MpaResult r = MpaFrame.decode(buf, consumed, avail);
                return switch (r) {
                    case MpaResult.NeedMore n -> false;
                    case MpaResult.Decoded d -> {
                        out.add("mpa " + d.frame());
                        consumed += d.length();
                        mpaDone = true;
                        yield true;
                    }
                    case MpaResult.Invalid i -> {
                        out.add("mpa invalid " + i.problem() + " " + i.frame());
                        // siw refuses markers with a reply; nothing follows on that connection
                        stopped = true;
                        yield false;
                    }
                };
            }
            FpduCheck check = FpduHeader.check(buf, consumed, avail);
            if (check == FpduCheck.NEED_MORE) {
                return false;
            }
            int len = FpduHeader.peekFpduLength(buf, consumed, avail);
            if (len > avail) {
                return false;
            }
            String frame = HexFormat.of().formatHex(buf.asSlice(consumed, len).toArray(ValueLayout.JAVA_BYTE));
            String crcState = crcOn ? (crc.verify(buf, consumed) ? "crc ok" : "crc BAD") : "no crc";
            String term = "";
            if (check == FpduCheck.OK && FpduHeader.opcode(buf, consumed) == RdmapOpcode.TERMINATE.value()) {
                term = " " + Terminate.decode(buf, consumed, avail, TermLayout.SIW_LITTLE_ENDIAN);
            }
            out.add("fpdu " + check + " " + crcState + term + " " + frame);
            consumed += len;
            return true;
        }
    }

    private static List<String> decodeWhole(byte[] stream, boolean crc) {
        Decoder d = new Decoder(stream.length, crc);
        d.feed(stream, 0, stream.length);
        if (!d.stopped) {
            assertThat(d.consumed).as("whole stream consumed").isEqualTo(stream.length);
        }
        return d.out;
    }

    @ParameterizedTest
    @MethodSource("directions")
    void streamSplitAtEveryByteBoundaryDecodesToTheSameFrames(Direction dir) {
        byte[] stream = Golden.stream(dir.scenario(), dir.from());
        List<String> whole = decodeWhole(stream, dir.crc());
        assertThat(whole).isNotEmpty();
        for (int cut = 0; cut <= stream.length; cut++) {
            Decoder d = new Decoder(stream.length, dir.crc());
            d.feed(stream, 0, cut);
            d.feed(stream, cut, stream.length - cut);
            assertThat(d.out).as("cut at " + cut).isEqualTo(whole);
        }
        Decoder bytewise = new Decoder(stream.length, dir.crc());
        for (int i = 0; i < stream.length; i++) {
            bytewise.feed(stream, i, 1);
        }
        assertThat(bytewise.out).as("one byte at a time").isEqualTo(whole);
    }

    @ParameterizedTest
    @MethodSource("directions")
    void eachDirectionDecodesToItsCapturedFramesInOrder(Direction dir) {
        List<String> decoded = decodeWhole(Golden.stream(dir.scenario(), dir.from()), dir.crc());
        List<Golden.Fixture> frames = Golden.scenario(dir.scenario()).stream()
                .filter(f -> f.from().equals(dir.from())).toList();
        assertThat(decoded).hasSize(frames.size() == 1 && frames.getFirst().kind().equals("mpa-badkey") ? 1
                : frames.size());
        for (int i = 0; i < decoded.size(); i++) {
            Golden.Fixture f = frames.get(i);
            String line = decoded.get(i);
            if (f.isMpa()) {
                assertThat(line).as(f.name()).startsWith("mpa");
            } else {
                assertThat(line).as(f.name()).endsWith(HexFormat.of().formatHex(f.bytes()));
                boolean broken = f.kind().equals("opcode8") || f.scenario().endsWith("version")
                        && !f.fromSiw();
                assertThat(line).as(f.name()).startsWith(broken ? "fpdu " : "fpdu OK");
                if (f.crc()) {
                    boolean corrupt = f.scenario().equals("term-bad-crc") && !f.fromSiw();
                    assertThat(line).as(f.name()).contains(corrupt ? "crc BAD" : "crc ok");
                }
            }
        }
    }

    @Test
    void everyCapturedDataFpduJrdmaCouldSendReencodesFromItsDecodedFields() {
        MpaCrc crc = new MpaCrc();
        FpduHeader in = new FpduHeader();
        FpduHeader out = new FpduHeader();
        ReadRequestHeader rrIn = new ReadRequestHeader();
        ReadRequestHeader rrOut = new ReadRequestHeader();
        long n = Golden.fpdus().filter(f -> !f.kind().equals("terminate"))
                .filter(f -> FpduHeader.check(MemorySegment.ofArray(f.bytes()), 0, f.bytes().length) == FpduCheck.OK)
                .filter(f -> !(f.scenario().equals("term-bad-crc") && !f.fromSiw())).peek(f -> {
                    MemorySegment s = MemorySegment.ofArray(f.bytes());
                    in.wrap(s, 0);
                    RdmapOpcode op = RdmapOpcode.of(in.opcode());
                    MemorySegment b = MemorySegment.ofArray(new byte[f.bytes().length]);
                    out.wrap(b, 0).start(op, in.last(), in.payloadLength());
                    if (op.tagged()) {
                        out.stag(in.stag()).taggedOffset(in.taggedOffset());
                    } else {
                        out.invalidateStag(in.invalidateStag()).queueNumber(in.queueNumber())
                                .messageSequenceNumber(in.messageSequenceNumber()).messageOffset(in.messageOffset());
                    }
                    if (op == RdmapOpcode.RDMA_READ_REQUEST) {
                        rrIn.wrap(s, 0);
                        rrOut.wrap(b, 0).sinkStag(rrIn.sinkStag()).sinkTo(rrIn.sinkTo()).readSize(rrIn.readSize())
                                .sourceStag(rrIn.sourceStag()).sourceTo(rrIn.sourceTo());
                    }
                    MemorySegment.copy(s, in.payloadOffset(), b, out.payloadOffset(), in.payloadLength());
                    if (f.crc()) {
                        crc.seal(b, 0);
                    }
                    assertThat(b.toArray(ValueLayout.JAVA_BYTE)).as(f.name()).isEqualTo(f.bytes());
                }).count();
        assertThat(n).isGreaterThan(80);
    }
}
