package io.jrdma.rxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.roce.Icrc;
import io.jrdma.internal.roce.Ipv4UdpHeader;
import io.jrdma.rxe.testing.Tries;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ICRC properties on synthetic packets: the id solver, IPv6, and the allocation-free hot path. */
class IcrcTest {
    private static final int SRC = 0x0a00040f;
    private static final int DST = 0x0a000402;

    private static MemorySegment packet(byte[] body) {
        byte[] b = new byte[body.length + Icrc.LENGTH];
        System.arraycopy(body, 0, b, 0, body.length);
        return MemorySegment.ofArray(b);
    }

    @Test
    void solverRecoversAnyIdAndDfSetting() {
        Tries.run("solverRecoversAnyIdAndDfSetting", 300, g -> {
            MemorySegment p = packet(g.bytes(12, 1500));
            int id = g.intBetween(0, 0xffff);
            boolean df = g.bool();
            int sport = g.intBetween(1, 0xffff);
            int len = (int) p.byteSize();
            int flags = df ? Ipv4UdpHeader.FLAG_DF : 0;
            Icrc icrc = new Icrc();
            Icrc.store(p, 0, len, icrc.ipv4(p, 0, len, SRC, DST, sport, 4791, id, flags));
            long match = icrc.solveIpv4Id(p, 0, len, SRC, DST, sport, 4791);
            assertThat(match).isNotEqualTo(Icrc.NO_MATCH);
            assertThat(Icrc.matchedId(match)).isEqualTo(id);
            assertThat(Icrc.matchedFlags(match)).isEqualTo(flags);
        });
    }

    @Test
    void ipv4MatchesTheNaiveReference() {
        Tries.run("ipv4MatchesTheNaiveReference", 200, g -> {
            MemorySegment p = packet(g.bytes(12, 600));
            int id = g.intBetween(0, 0xffff);
            int src = g.anyInt();
            int dst = g.anyInt();
            int len = (int) p.byteSize();
            assertThat(new Icrc().ipv4(p, 0, len, src, dst, 50000, 4791, id, 0x4000)).isEqualTo(
                    ReferenceIcrc.ipv4(p.toArray(ValueLayout.JAVA_BYTE), src, dst, 50000, 4791, id, 0x4000));
        });
    }

    @Test
    void ipv6MatchesTheNaiveReference() {
        Tries.run("ipv6MatchesTheNaiveReference", 200, g -> {
            MemorySegment p = packet(g.bytes(12, 600));
            byte[] src = g.bytes(16);
            byte[] dst = g.bytes(16);
            int sport = g.intBetween(0, 0xffff);
            int len = (int) p.byteSize();
            ByteBuffer s = ByteBuffer.wrap(src);
            ByteBuffer d = ByteBuffer.wrap(dst);
            assertThat(new Icrc().ipv6(p, 0, len, s.getLong(0), s.getLong(8), d.getLong(0), d.getLong(8), sport,
                    4791)).isEqualTo(ReferenceIcrc.ipv6(p.toArray(ValueLayout.JAVA_BYTE), src, dst, sport, 4791));
        });
    }

    @Test
    void aRandomIcrcMatchesSomeIdAboutOnceIn32768Tries() {
        Random r = new Random(42);
        byte[] body = new byte[268];
        r.nextBytes(body);
        MemorySegment p = packet(body);
        int len = (int) p.byteSize();
        Icrc icrc = new Icrc();
        int matches = 0;
        int tries = 200_000;
        for (int i = 0; i < tries; i++) {
            Icrc.store(p, 0, len, r.nextInt());
            if (icrc.solveIpv4Id(p, 0, len, SRC, DST, 50000, 4791) != Icrc.NO_MATCH) {
                matches++;
            }
        }
        // two DF settings x 2^16 ids out of 2^32 ICRC values: expected 200000 / 32768 = 6.1
        assertThat(matches).isBetween(1, 20);
    }

    @Test
    void solvingIsCorrectAcrossPacketLengthsSharingOneInstance() {
        Icrc icrc = new Icrc();
        Random r = new Random(7);
        for (int len = Icrc.MIN_PAYLOAD; len < 5000; len += 97) {
            byte[] body = new byte[len - Icrc.LENGTH];
            r.nextBytes(body);
            MemorySegment p = packet(body);
            int id = r.nextInt(0x10000);
            Icrc.store(p, 0, len, icrc.ipv4(p, 0, len, SRC, DST, 4791, 4791, id, 0x4000));
            assertThat(Icrc.matchedId(icrc.solveIpv4Id(p, 0, len, SRC, DST, 4791, 4791))).isEqualTo(id);
        }
    }

    @Test
    void refusesPayloadsThatCannotHoldABthAndAnIcrc() {
        MemorySegment p = MemorySegment.ofArray(new byte[15]);
        assertThat(new Icrc().solveIpv4Id(p, 0, 15, SRC, DST, 1, 4791)).isEqualTo(Icrc.NO_MATCH);
    }

    @Test
    void worksOnNativeSegmentsAtAnOffset() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(2048);
            byte[] body = new byte[300];
            new Random(3).nextBytes(body);
            MemorySegment.copy(body, 0, buf, ValueLayout.JAVA_BYTE, 100, body.length);
            int len = body.length + Icrc.LENGTH;
            Icrc icrc = new Icrc();
            icrc.sealIpv4ForSend(buf, 100, len, SRC, DST, 4791, 4791);
            MemorySegment heap = packet(body);
            assertThat(Icrc.stored(buf, 100, len)).isEqualTo(icrc.ipv4ForSend(heap, 0, len, SRC, DST, 4791, 4791));
            assertThat(icrc.solveIpv4Id(buf, 100, len, SRC, DST, 4791, 4791)).isEqualTo(Icrc.MATCH_DF);
        }
    }

    @Test
    void checkingAllocatesNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(2048);
            int len = 1044;
            Icrc icrc = new Icrc();
            icrc.sealIpv4ForSend(buf, 0, len, SRC, DST, 4791, 4791);
            long sink = 0;
            for (int i = 0; i < 20_000; i++) {
                sink += icrc.solveIpv4Id(buf, 0, len, SRC, DST, 4791, 4791);
                sink += icrc.sealIpv4ForSend(buf, 0, len, SRC, DST, 4791, 4791);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                sink += icrc.solveIpv4Id(buf, 0, len, SRC, DST, 4791, 4791);
                sink += icrc.sealIpv4ForSend(buf, 0, len, SRC, DST, 4791, 4791);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(sink).isNotZero();
            assertThat(allocated).as("bytes allocated by 20000 ICRC operations").isLessThan(1024);
        }
    }
}
