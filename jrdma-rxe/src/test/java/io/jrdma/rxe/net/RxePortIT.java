package io.jrdma.rxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Reth;
import io.jrdma.internal.verbs.QpNumbers;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.testkit.Pcap;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device's port on a real socket: {@link RxePort#seal} gives a packet the ICRC Linux rxe checks for the
 * datagram from the port's address to the peer (IPv4: identification 0, DF) and shows the capture the
 * packet as sealed; the QP table finds a QP by number until it is unregistered.
 */
class RxePortIT {
    private static final int SOURCE_PORT = 0xC011;

    @TempDir
    Path dir;

    private static RxePort port(String address) throws Exception {
        return new RxePort("rxe-port-test", InetAddress.getByName(address), 0, Mtu.MTU_1024,
                new FaultInjector(FaultInjector.Settings.NONE),
                new DeviceCounters("rxe-port-test", List.of(Counter.SENT_PKTS)));
    }

    /** An RC RDMA WRITE Only of 5 bytes, ICRC not yet sealed. */
    private static MemorySegment packet() {
        int length = Bth.LENGTH + Reth.LENGTH + 8 + Icrc.LENGTH;
        MemorySegment p = MemorySegment.ofArray(new byte[length]);
        new Bth().wrap(p, 0).init(IbOpcode.RC_RDMA_WRITE_ONLY.code(), false, false, 3, Bth.DEFAULT_PKEY, 0x12,
                true, 0x123456);
        new Reth().wrap(p, Bth.LENGTH).va(0x1000).rkey(0x77).dmaLength(5);
        p.asSlice(Bth.LENGTH + Reth.LENGTH, 5).fill((byte) 0x5a);
        return p;
    }

    @Test
    void anIpv4PacketIsSealedForIdZeroAndDfAndCapturedAsSealed() throws Exception {
        RxePort port = port("127.0.0.1");
        try {
            Path file = dir.resolve("port.pcap");
            port.tap(PacketTap.open(file, () -> { }));
            Peer peer = port.peer(Gid.of(InetAddress.getByName("127.0.0.2")));
            MemorySegment p = packet();
            int length = (int) p.byteSize();
            port.seal(new Icrc(), p, length, SOURCE_PORT, peer);
            port.tap().close();

            long match = new Icrc().solveIpv4Id(p, 0, length, 0x7f00_0001, 0x7f00_0002, SOURCE_PORT,
                    peer.address().getPort());
            assertThat(match).as("the ICRC checks, for id 0 with DF").isEqualTo(Icrc.MATCH_DF);
            List<byte[]> records = Pcap.records(file);
            assertThat(records).hasSize(1);
            byte[] ip = records.get(0);
            assertThat(Arrays.copyOfRange(ip, 28, ip.length)).as("the packet as sealed, behind IPv4 and UDP")
                    .isEqualTo(p.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertThat((ip[20] & 0xff) << 8 | ip[21] & 0xff).as("UDP source port").isEqualTo(SOURCE_PORT);
        } finally {
            port.udp().close();
        }
    }

    @Test
    void anIpv6PacketIsSealedForTheIpv6PseudoHeader() throws Exception {
        RxePort port = port("::1");
        try {
            Peer peer = port.peer(Gid.of(InetAddress.getByName("::1")));
            MemorySegment p = packet();
            int length = (int) p.byteSize();
            port.seal(new Icrc(), p, length, SOURCE_PORT, peer);
            int expect = new Icrc().ipv6(p, 0, length, 0, 1, 0, 1, SOURCE_PORT, peer.address().getPort());
            assertThat(Icrc.stored(p, 0, length)).isEqualTo(expect);
            assertThat(port.tap()).as("no capture runs: nothing else happens").isNull();
        } finally {
            port.udp().close();
        }
    }

    @Test
    void theQpTableFindsAQpByNumberUntilItIsUnregistered() throws Exception {
        RxePort port = port("127.0.0.1");
        try {
            int qpn = QpNumbers.qpn(200);
            RxePort.Qp q = packet -> { };
            RxePort.Qp other = packet -> { };
            assertThat(port.qp(qpn)).isNull();
            port.register(qpn, q);
            assertThat(port.qp(qpn)).isSameAs(q);
            assertThat(port.qp(QpNumbers.qpn(201))).isNull();
            port.unregister(qpn, other);
            assertThat(port.qp(qpn)).as("only the QP itself is forgotten").isSameAs(q);
            port.unregister(qpn, q);
            assertThat(port.qp(qpn)).isNull();
        } finally {
            port.udp().close();
        }
    }
}
