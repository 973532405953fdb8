package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

class PingpongDestTest {

    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0a00020f");

    @Test
    void encodesEveryFieldBigEndianAtTheX8664StructOffsets() {
        PingpongDest d = new PingpongDest(0x0102, 128, 0x12, 0xabcdef, 0x11223344, 0x00007f0012345678L, GID, 0, 0);
        byte[] wire = new byte[PingpongDest.LENGTH];
        d.encode(MemorySegment.ofArray(wire), 0);
        assertThat(HexFormat.of().formatHex(wire)).isEqualTo(
                "00000102" + "00000080" + "00000012" + "00abcdef" + "11223344" + "00000000"
                + "00007f0012345678" + "00000000000000000000ffff0a00020f" + "00000000" + "00000000");
    }

    @Test
    void decodesWhatPerftestsRdmaReadKeysReadsAndKeepsTheLocalGidIndex() {
        byte[] wire = HexFormat.of().parseHex("00000000" + "00000001" + "00000002" + "0051f9c9" + "00000201"
                + "deadbeef" + "00005555aaaa0000" + "52540018528600000000000000000000" + "00000007" + "00000009");
        PingpongDest d = PingpongDest.decode(MemorySegment.ofArray(wire), 0, 0);
        assertThat(d.outReads()).isEqualTo(1);
        assertThat(d.qpn()).isEqualTo(2);
        assertThat(d.psn()).isEqualTo(0x51f9c9);
        assertThat(d.rkey()).isEqualTo(0x201);
        assertThat(d.vaddr()).isEqualTo(0x00005555aaaa0000L);
        assertThat(d.gid()).containsExactly(HexFormat.of().parseHex("52540018528600000000000000000000"));
        assertThat(d.srqn()).isZero();
        assertThat(d.gidIndex()).isZero();
    }

    @Test
    void roundTripsThroughTheWireForm() {
        PingpongDest d = new PingpongDest(0, 1, 0xffffff, 0x7fffff, -1, -1L, GID, 0, 3);
        byte[] wire = new byte[PingpongDest.LENGTH];
        d.encode(MemorySegment.ofArray(wire), 0);
        assertThat(PingpongDest.decode(MemorySegment.ofArray(wire), 0, 3)).isEqualTo(d);
    }

    @Test
    void rejectsAGidThatIsNotSixteenBytes() {
        assertThatThrownBy(() -> new PingpongDest(0, 0, 0, 0, 0, 0, new byte[15], 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 bytes");
    }

    @Test
    void theAddressLineCarriesNoKeysAsPerftestPrintsItInTheRdmaCmMode() {
        PingpongDest d = new PingpongDest(0, 1, 0x12, 0x7f4bcc, 5, 6, GID, 0, 0);
        assertThat(d.toPeerAddress(true).addressLine("local", false, false))
                .isEqualTo(" local address: LID 0000 QPN 0x0012 PSN 0x7f4bcc");
        assertThat(d.toPeerAddress(true).gidLine())
                .isEqualTo(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:02:15");
        assertThat(d.toPeerAddress(false).gidLine()).isNull();
    }
}
