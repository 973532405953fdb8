package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.rxe.golden.GoldenFrame;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The ICRC against every frame captured from (or accepted by) Linux 6.1 rxe. */
class IcrcGoldenTest {
    private final Icrc icrc = new Icrc();

    static List<GoldenFrame> frames() {
        return GoldenFrame.all();
    }

    static List<GoldenFrame> goodFrames() {
        return GoldenFrame.all().stream().filter(f -> !f.negative()).toList();
    }

    @Test
    void theFixtureSetCoversLinuxAndHostFramesAndOneNegativeControl() {
        assertThat(frames()).hasSizeGreaterThanOrEqualTo(45);
        assertThat(frames()).filteredOn(GoldenFrame::fromLinux).hasSizeGreaterThanOrEqualTo(35);
        assertThat(frames()).filteredOn(GoldenFrame::negative).hasSize(1);
    }

    @ParameterizedTest
    @MethodSource("frames")
    void computesTheCapturedIcrcFromTheCapturedIpv4Header(GoldenFrame f) {
        MemorySegment packet = MemorySegment.ofArray(f.packet());
        int stored = Icrc.stored(packet, GoldenFrame.PAYLOAD_OFFSET, f.payloadLength());
        if (f.negative()) {
            assertThat(icrc.ipv4Packet(packet, 0)).isNotEqualTo(stored);
            assertThat(icrc.checkIpv4Packet(packet, 0)).isFalse();
        } else {
            assertThat(icrc.ipv4Packet(packet, 0)).isEqualTo(stored);
            assertThat(icrc.checkIpv4Packet(packet, 0)).isTrue();
        }
    }

    @ParameterizedTest
    @MethodSource("frames")
    void agreesWithTheNaiveReferenceOnEveryFrame(GoldenFrame f) {
        byte[] payload = f.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        assertThat(icrc.ipv4(f.payload(), 0, f.payloadLength(), f.source(), f.destination(), f.sourcePort(),
                f.destinationPort(), f.ipId(), f.flagsFragment()))
                .isEqualTo(ReferenceIcrc.ipv4(payload, f.source(), f.destination(), f.sourcePort(),
                        f.destinationPort(), f.ipId(), f.flagsFragment()));
    }

    @ParameterizedTest
    @MethodSource("frames")
    void solvesTheCapturedIpv4IdFromWhatASocketSees(GoldenFrame f) {
        long match = icrc.solveIpv4Id(f.payload(), 0, f.payloadLength(), f.source(), f.destination(),
                f.sourcePort(), f.destinationPort());
        assertThat(match).isNotEqualTo(Icrc.NO_MATCH);
        if (f.negative()) {
            // the sender computed its ICRC for id 0 + DF, the kernel then wrote a counter id: the solver
            // finds the id the ICRC was made for, not the one on the wire, which is why rxe dropped it
            assertThat(Icrc.matchedId(match)).isZero().isNotEqualTo(f.ipId());
        } else {
            assertThat(Icrc.matchedId(match)).as("IPv4 id").isEqualTo(f.ipId());
        }
        assertThat(Icrc.matchedFlags(match)).isEqualTo(f.flagsFragment());
    }

    @ParameterizedTest
    @MethodSource("goodFrames")
    void rejectsFixedCorruptionsOfEveryFrame(GoldenFrame f) {
        int len = f.payloadLength();
        int[] positions = {0, 2, 9, 11, len / 2, len - 5, len - 1};
        for (int at : positions) {
            for (int bit : new int[] {0x01, 0x80}) {
                MemorySegment p = f.payload();
                p.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at,
                        (byte) (p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) ^ bit));
                assertThat(icrc.solveIpv4Id(p, 0, len, f.source(), f.destination(), f.sourcePort(),
                        f.destinationPort())).as("byte %d ^ 0x%02x", at, bit).isEqualTo(Icrc.NO_MATCH);
            }
        }
        assertThat(icrc.solveIpv4Id(f.payload(), 0, len, f.source(), f.destination(), f.sourcePort() ^ 1,
                f.destinationPort())).as("wrong source port").isEqualTo(Icrc.NO_MATCH);
        assertThat(icrc.solveIpv4Id(f.payload(), 0, len, f.source() ^ 0x100, f.destination(), f.sourcePort(),
                f.destinationPort())).as("wrong source address").isEqualTo(Icrc.NO_MATCH);
    }

    @ParameterizedTest
    @MethodSource("goodFrames")
    void ignoresTheFieldsRxeMasks(GoldenFrame f) {
        byte[] b = f.packet().clone();
        b[1] = (byte) 0xb8;                        // TOS
        b[8] = 1;                                  // TTL
        b[10] ^= 0x55;                             // IPv4 checksum
        b[26] ^= 0x33;                             // UDP checksum
        b[GoldenFrame.PAYLOAD_OFFSET + Bth.RESV8A_OFFSET] = (byte) 0xc0;   // FECN, BECN
        MemorySegment packet = MemorySegment.ofArray(b);
        assertThat(icrc.checkIpv4Packet(packet, 0)).isTrue();
    }

    @ParameterizedTest
    @MethodSource("goodFrames")
    void coversTheIpv4IdAndFlags(GoldenFrame f) {
        byte[] b = f.packet().clone();
        b[5] ^= 1;
        assertThat(icrc.checkIpv4Packet(MemorySegment.ofArray(b), 0)).isFalse();
        b = f.packet().clone();
        b[6] ^= 0x40;
        assertThat(icrc.checkIpv4Packet(MemorySegment.ofArray(b), 0)).isFalse();
    }

    @ParameterizedTest
    @MethodSource("frames")
    void sealsHostFramesExactlyAsTheyWentOnTheWire(GoldenFrame f) {
        if (f.ipId() != 0 || f.negative()) {
            return;                                // only frames sent with id 0 + DF
        }
        MemorySegment p = f.payload();
        int stored = Icrc.stored(p, 0, f.payloadLength());
        Icrc.store(p, 0, f.payloadLength(), 0);
        int sealed = icrc.sealIpv4ForSend(p, 0, f.payloadLength(), f.source(), f.destination(), f.sourcePort(),
                f.destinationPort());
        assertThat(sealed).isEqualTo(stored);
        assertThat(p.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(f.payload()
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void storesTheIcrcLittleEndianAsRxeDoes() {
        GoldenFrame f = GoldenFrame.named("cm-req-rping-client-tap");
        byte[] b = f.packet();
        int n = b.length;
        // the CRC-32 value is 0x5d9466c3; rxe stores it little-endian, so the wire bytes are c3 66 94 5d,
        // which tshark shows read big-endian as "Invariant CRC: 0xc366945d"
        assertThat(icrc.ipv4Packet(MemorySegment.ofArray(b), 0)).isEqualTo(0x5d9466c3);
        assertThat(new byte[] {b[n - 4], b[n - 3], b[n - 2], b[n - 1]})
                .containsExactly((byte) 0xc3, (byte) 0x66, (byte) 0x94, (byte) 0x5d);
    }
}
