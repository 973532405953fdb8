package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Ipv4UdpHeader;
import io.jrdma.rxe.cm.CmDecodeResult;
import io.jrdma.rxe.cm.CmMadCodec;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.testkit.Pcap;
import io.jrdma.verbs.Gid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RoCEv2 over IPv6 against Linux 6.1 rxe: every frame of two captures on the rig's tap link
 * ({@code src/test/resources/golden/ipv6}, see the golden README), sent by Linux rxe1 on fd00:4::15 or
 * by jrdma's rxe0 on fd00:4::2 (and accepted by Linux: its {@code rcvd_pkts} counted each one). The ICRC
 * is rxe's: CRC-32 over 8 bytes of ones, the IPv6 header with traffic class, flow label and hop limit
 * masked to ones ({@code rxe_icrc.c}), the UDP header with its checksum masked, the BTH with byte 4
 * masked, and the rest.
 */
class Ipv6GoldenTest {
    private static final InetAddress LINUX = address("fd00:4::15");
    private static final InetAddress JRDMA = address("fd00:4::2");

    /** One captured IPv6/UDP packet: the IPv6 header, UDP, BTH .. ICRC. */
    record Frame(String capture, int number, byte[] ip) {
        byte[] source() {
            return Arrays.copyOfRange(ip, 8, 24);
        }

        byte[] destination() {
            return Arrays.copyOfRange(ip, 24, 40);
        }

        int sourcePort() {
            return u16(40);
        }

        int destinationPort() {
            return u16(42);
        }

        int udpChecksum() {
            return u16(46);
        }

        int flowLabel() {
            return (ip[1] & 0xf) << 16 | (ip[2] & 0xff) << 8 | ip[3] & 0xff;
        }

        byte[] payload() {
            return Arrays.copyOfRange(ip, 48, ip.length);
        }

        boolean fromLinux() {
            return Arrays.equals(source(), LINUX.getAddress());
        }

        private int u16(int at) {
            return (ip[at] & 0xff) << 8 | ip[at + 1] & 0xff;
        }

        @Override
        public String toString() {
            return capture + "#" + number + (fromLinux() ? " (Linux)" : " (jrdma)");
        }
    }

    private static InetAddress address(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Frame> capture(String name) {
        try {
            Path p = Path.of(Ipv6GoldenTest.class.getResource("/golden/ipv6/" + name).toURI());
            List<Frame> out = new ArrayList<>();
            int n = 1;
            for (byte[] r : Pcap.records(p)) {
                out.add(new Frame(name, n++, r));
            }
            return out;
        } catch (java.io.IOException | java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Frame> frames() {
        return Stream.concat(capture("rc-rping.pcap").stream(), capture("ud-udaddy.pcap").stream());
    }

    private static long high(byte[] a) {
        return ByteBuffer.wrap(a).getLong(0);
    }

    private static long low(byte[] a) {
        return ByteBuffer.wrap(a).getLong(8);
    }

    private static int icrc(Frame f) {
        byte[] p = f.payload();
        return new Icrc().ipv6(MemorySegment.ofArray(p), 0, p.length, high(f.source()), low(f.source()),
                high(f.destination()), low(f.destination()), f.sourcePort(), f.destinationPort());
    }

    @Test
    void theCapturesHoldBothDirectionsOfAnRcAndAUdExchange() {
        List<Frame> rc = capture("rc-rping.pcap");
        List<Frame> ud = capture("ud-udaddy.pcap");
        assertThat(rc).hasSize(82);
        assertThat(ud).hasSize(44);
        assertThat(rc).filteredOn(Frame::fromLinux).hasSize(41);
        assertThat(ud).filteredOn(Frame::fromLinux).hasSize(22);
        assertThat(frames()).allSatisfy(f -> {
            assertThat(f.ip()[0] >>> 4 & 0xf).isEqualTo(6);
            assertThat(f.ip()[6]).as("next header UDP, no extension headers").isEqualTo((byte) 17);
            assertThat(f.destinationPort()).isEqualTo(Ipv4UdpHeader.ROCE_V2_PORT);
        });
    }

    @ParameterizedTest
    @MethodSource("frames")
    void theIcrcOfEveryFrameIsTheOneRxeComputes(Frame f) {
        byte[] p = f.payload();
        int stored = Icrc.stored(MemorySegment.ofArray(p), 0, p.length);
        assertThat(icrc(f)).isEqualTo(stored);
        assertThat(ReferenceIcrc.ipv6(p, f.source(), f.destination(), f.sourcePort(), f.destinationPort()))
                .isEqualTo(stored);
    }

    @Test
    void theIcrcMasksTheFlowLabelThatEachKernelWritesItsOwnWay() {
        // Linux rxe sends flow label 0; jrdma sends from UDP sockets, whose flow label the host kernel
        // picks (net.ipv6.auto_flowlabels: a hash of the flow). Both verified above, and Linux accepted
        // jrdma's: the label is masked, so a sender need not know it.
        assertThat(frames().filter(Frame::fromLinux)).allSatisfy(f -> assertThat(f.flowLabel()).isZero());
        assertThat(frames().filter(f -> !f.fromLinux())).allSatisfy(f -> assertThat(f.flowLabel()).isNotZero());
        Frame jrdma = frames().filter(f -> !f.fromLinux()).findFirst().orElseThrow();
        byte[] unmasked = jrdma.ip().clone();
        // The same packet with another label, traffic class and hop limit: the ICRC does not change.
        unmasked[1] = (byte) (unmasked[1] ^ 0x5a);
        unmasked[3] = (byte) (unmasked[3] ^ 0x77);
        unmasked[7] = 1;
        assertThat(icrc(new Frame("changed", 0, unmasked))).isEqualTo(icrc(jrdma));
        // A covered field does: the UDP source port.
        byte[] port = jrdma.ip().clone();
        port[41] ^= 1;
        assertThat(icrc(new Frame("port", 0, port))).isNotEqualTo(icrc(jrdma));
    }

    @Test
    void linuxRxeSendsAZeroUdpChecksumOverIpv6AndJrdmasKernelARealOne() {
        // RFC 6935 lets a tunnel over IPv6 send UDP checksum 0; a host socket drops such datagrams unless
        // it sets UDP_NO_CHECK6_RX, which jrdma's RoCEv2 socket does (UdpNoCheck6).
        assertThat(frames().filter(Frame::fromLinux)).allSatisfy(f -> assertThat(f.udpChecksum()).isZero());
        assertThat(frames().filter(f -> !f.fromLinux())).allSatisfy(f -> assertThat(f.udpChecksum()).isNotZero());
    }

    @Test
    void theCmMadsOfBothSidesCarryIpv6GidsAndAnIpv6RdmaCmHeader() {
        List<Req> reqs = new ArrayList<>();
        for (Frame f : capture("rc-rping.pcap")) {
            byte[] p = f.payload();
            if (Bth.destQpn(MemorySegment.ofArray(p), 0) != 1) {
                continue;
            }
            CmDecodeResult r = CmMadCodec.decodeDatagram(MemorySegment.ofArray(p), 0, p.length);
            assertThat(r).as(f.toString()).isInstanceOf(CmDecodeResult.Decoded.class);
            if (((CmDecodeResult.Decoded) r).mad().message() instanceof Req req) {
                reqs.add(req);
            }
        }
        assertThat(reqs).as("jrdma's REQ, then Linux's").hasSize(2);
        CmaHeader fromJrdma = CmaHeader.decode(reqs.get(0).privateData()).orElseThrow();
        CmaHeader fromLinux = CmaHeader.decode(reqs.get(1).privateData()).orElseThrow();
        assertThat(fromJrdma.ipVersion()).isEqualTo(6);
        assertThat(fromJrdma.sourceAddress()).isEqualTo(JRDMA);
        assertThat(fromJrdma.destinationAddress()).isEqualTo(LINUX);
        assertThat(fromLinux.ipVersion()).isEqualTo(6);
        assertThat(fromLinux.sourceAddress()).isEqualTo(LINUX);
        assertThat(fromLinux.destinationAddress()).isEqualTo(JRDMA);
        // The encoding is byte for byte Linux's.
        assertThat(CmaHeader.of(fromLinux.sourceAddress(), fromLinux.sourcePort(), fromLinux.destinationAddress())
                .encode()).isEqualTo(Arrays.copyOf(reqs.get(1).privateData().toByteArray(), CmaHeader.LENGTH));
        assertThat(reqs.get(1).primaryPath().localGid()).isEqualTo(Gid.of(LINUX));
        assertThat(reqs.get(1).primaryPath().remoteGid()).isEqualTo(Gid.of(JRDMA));
        assertThat(reqs.get(0).primaryPath().localGid()).isEqualTo(Gid.of(JRDMA));
        assertThat(reqs.get(0).primaryPath().localGid().isIpv4Mapped()).isFalse();
    }

    @Test
    void sidrOverIpv6CarriesTheRdmaCmHeaderAndTheDatagramsAreUdSendsWithImmediate() {
        int sidr = 0;
        int ud = 0;
        for (Frame f : capture("ud-udaddy.pcap")) {
            MemorySegment p = MemorySegment.ofArray(f.payload());
            int op = p.get(ValueLayout.JAVA_BYTE, 0) & 0xff;
            if (Bth.destQpn(p, 0) == 1) {
                CmDecodeResult r = CmMadCodec.decodeDatagram(p, 0, f.payload().length);
                if (((CmDecodeResult.Decoded) r).mad().message() instanceof SidrReq req) {
                    CmaHeader h = CmaHeader.decode(req.privateData()).orElseThrow();
                    assertThat(h.ipVersion()).isEqualTo(6);
                    assertThat(h.sourceAddress()).isEqualTo(f.fromLinux() ? LINUX : JRDMA);
                    sidr++;
                }
                continue;
            }
            assertThat(IbOpcode.fromCode(op)).as(f.toString()).isEqualTo(IbOpcode.UD_SEND_ONLY_WITH_IMMEDIATE);
            ud++;
        }
        assertThat(sidr).as("one SIDR_REQ each way").isEqualTo(2);
        assertThat(ud).isEqualTo(40);
    }
}
