package io.jrdma.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** C printf behaviours perftest's layout relies on. */
class PerftestFormatTest {

    @Test
    void alternateHexPadsWithZerosAndOmitsThePrefixForZero() {
        assertThat(PerftestFormat.altHex(0, 4)).isEqualTo("0000");
        assertThat(PerftestFormat.altHex(0x12, 6)).isEqualTo("0x0012");
        assertThat(PerftestFormat.altHex(0x18e67, 6)).isEqualTo("0x18e67");
        assertThat(PerftestFormat.altHex(0x80, 4)).isEqualTo("0x80");
        assertThat(PerftestFormat.altHex(0x7ff1a16a3000L, 16)).isEqualTo("0x007ff1a16a3000");
    }

    @Test
    void fixedPointUsesADotAndGlibcSpellingsForNonFiniteValues() {
        assertThat(PerftestFormat.fixed(1234.5678, 2)).isEqualTo("1234.57");
        assertThat(PerftestFormat.fixed(0.0000004, 6)).isEqualTo("0.000000");
        assertThat(PerftestFormat.fixed(Double.POSITIVE_INFINITY, 2)).isEqualTo("inf");
        assertThat(PerftestFormat.fixed(Double.NaN, 2)).isEqualTo("-nan");
    }

    @Test
    void gbitsRowsBelowATenthSwitchToSixDecimals() {
        String slow = PerftestFormat.bwRow(new BwResult(2, 20, 0.000343, 0.000218, 0.0136, ReportUnit.GBIT_PER_SEC));
        String fast = PerftestFormat.bwRow(new BwResult(1024, 20, 0.16, 0.12, 0.014357, ReportUnit.GBIT_PER_SEC));
        assertThat(slow).isEqualTo(" 2          20           0.000343            0.000218            0.013600");
        assertThat(fast).isEqualTo(" 1024       20               0.16               0.12   \t\t   0.014357");
    }

    @Test
    void wideNumbersPushColumnsRightInsteadOfBeingCut() {
        LatResult r = new LatResult(1048576, 100, 6702.72, 19349.14, 7272.91, 9173.54, 3115.88, 19349.14, 19349.14, 0);
        assertThat(PerftestFormat.latRow(r)).isEqualTo(" 1048576 100          6702.72        19349.14      7272.91  "
                + "\t       9173.54     \t3115.88\t\t19349.14 \t\t19349.14");
    }

    @Test
    void headersMatchTheKindOfRow() {
        assertThat(PerftestFormat.header(new BwResult(1, 5, 0, 0, 0, ReportUnit.MB_PER_SEC)))
                .isEqualTo(PerftestFormat.BW_HEADER_MB);
        assertThat(PerftestFormat.header(new LatDurationResult(1, 5, 0, 0, 0, 0, 0)))
                .isEqualTo(PerftestFormat.LAT_DURATION_HEADER);
        assertThat(PerftestFormat.RESULT_LINE).hasSize(87).matches("-+");
    }
}
