package io.jrdma.siw.qp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The TCP segment size a held transmit tail is aligned to ({@link SiwLink#tcpMss}). It must not exceed
 * what the kernel cuts: a write of one "segment" one byte too long leaves a 1-byte segment behind.
 */
class TcpMssTest {
    @Test
    void ipv4LoopbackSegmentsAre65483BytesAsMeasured() throws Exception {
        // A 65,536-byte MTU, but an IPv4 packet's length field stops at 65,535: 65,535 - 20 - 20 - 12.
        // Loopback TCP streamed 65,483-byte writes at 4.9-5.0 GB/s and 65,484-byte ones at 3.3-3.9
        // (2026-11-30): one byte more already costs a second segment.
        assertThat(SiwLink.tcpMss(InetAddress.getByName("127.0.0.1"), 65_536)).isEqualTo(65_483);
    }

    @Test
    void ethernetAndIpv6TakeTheirHeadersAndTheTimestampOption() throws Exception {
        assertThat(SiwLink.tcpMss(InetAddress.getByName("10.0.0.1"), 1500)).isEqualTo(1448);
        assertThat(SiwLink.tcpMss(InetAddress.getByName("::1"), 65_536)).isEqualTo(65_464);
        assertThat(SiwLink.tcpMss(InetAddress.getByName("fe80::1"), 1500)).isEqualTo(1428);
    }

    @Test
    void fpdusAreCutToTheMssOfTheFamilyOfThePath() throws Exception {
        // FPDU lengths are multiples of 8 (MPA's alignment) within the MSS: an IPv6 header is 20 bytes
        // longer than an IPv4 one, so a 1500-byte MTU carries 1448-byte FPDUs over IPv4, 1424 over IPv6.
        assertThat(SiwLink.segmentSize(SiwLink.tcpMss(InetAddress.getByName("10.0.4.2"), 1500), 0)).isEqualTo(1448);
        assertThat(SiwLink.segmentSize(SiwLink.tcpMss(InetAddress.getByName("fd00:4::2"), 1500), 0)).isEqualTo(1424);
        assertThat(SiwLink.segmentSize(SiwLink.tcpMss(InetAddress.getByName("::1"), 65_536), 0)).isEqualTo(65_464);
        assertThat(SiwLink.segmentSize(SiwLink.tcpMss(InetAddress.getByName("127.0.0.1"), 65_536), 0))
                .isEqualTo(65_480);
        assertThat(SiwLink.segmentSize(SiwLink.tcpMss(InetAddress.getByName("::1"), 65_536), 4096))
                .as("a configured segment wins").isEqualTo(4096);
    }

    @Test
    void aTinyMtuStillGivesTcpsMinimumSegment() throws Exception {
        assertThat(SiwLink.tcpMss(InetAddress.getByName("10.0.0.1"), 300)).isEqualTo(536);
    }
}
