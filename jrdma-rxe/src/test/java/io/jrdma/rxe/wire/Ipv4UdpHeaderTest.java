package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Ipv4UdpHeader;
import io.jrdma.rxe.golden.GoldenFrame;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The IPv4/UDP builder against headers the Linux kernels wrote. */
class Ipv4UdpHeaderTest {

    @Test
    void rebuildsTheHeaderRxeWrote() {
        // rxe: DF, TTL 64, TOS 0, no UDP checksum; the id is the kernel's counter
        GoldenFrame f = GoldenFrame.named("cm-req-rping-client");
        MemorySegment out = MemorySegment.ofArray(new byte[Ipv4UdpHeader.LENGTH]);
        new Ipv4UdpHeader().wrap(out, 0).write(f.source(), f.destination(), f.sourcePort(), 4791, f.payloadLength(),
                f.ipId(), Ipv4UdpHeader.FLAG_DF, 64, 0).updateChecksum();
        assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(Arrays.copyOf(f.packet(), Ipv4UdpHeader.LENGTH));
    }

    @Test
    void rebuildsTheIpHeaderTheHostKernelWroteForTheDfSocket() {
        GoldenFrame f = GoldenFrame.named("host-cm-req");
        MemorySegment out = MemorySegment.ofArray(new byte[Ipv4UdpHeader.LENGTH]);
        Ipv4UdpHeader h = new Ipv4UdpHeader().wrap(out, 0).write(f.source(), f.destination(), 4791, 4791,
                f.payloadLength(), 0, Ipv4UdpHeader.FLAG_DF, 64, 0).updateChecksum();
        // the host kernel also filled in a UDP checksum, which the ICRC masks
        assertThat(Arrays.copyOf(out.toArray(ValueLayout.JAVA_BYTE), 26)).isEqualTo(Arrays.copyOf(f.packet(), 26));
        assertThat(h.udpChecksum()).isZero();
    }

    @Test
    void readsEveryField() {
        GoldenFrame f = GoldenFrame.named("rc-send-first");
        Ipv4UdpHeader h = new Ipv4UdpHeader().wrap(MemorySegment.ofArray(f.packet()), 0);
        assertThat(h.versionIhl()).isEqualTo(0x45);
        assertThat(h.tos()).isZero();
        assertThat(h.totalLength()).isEqualTo(f.packet().length);
        assertThat(h.id()).isEqualTo(f.ipId());
        assertThat(h.flagsFragment()).isEqualTo(Ipv4UdpHeader.FLAG_DF);
        assertThat(h.ttl()).isEqualTo(64);
        assertThat(h.protocol()).isEqualTo(Ipv4UdpHeader.PROTOCOL_UDP);
        assertThat(h.source()).isEqualTo(GoldenFrame.ip("10.0.4.15"));
        assertThat(h.destination()).isEqualTo(GoldenFrame.ip("10.0.4.2"));
        assertThat(h.sourcePort()).isEqualTo(f.sourcePort());
        assertThat(h.destinationPort()).isEqualTo(Ipv4UdpHeader.ROCE_V2_PORT);
        assertThat(h.udpLength()).isEqualTo(f.packet().length - 20);
        assertThat(h.udpChecksum()).as("rxe sends no UDP checksum").isZero();
        int checksum = h.headerChecksum();
        assertThat(h.updateChecksum().headerChecksum()).isEqualTo(checksum);
    }
}
