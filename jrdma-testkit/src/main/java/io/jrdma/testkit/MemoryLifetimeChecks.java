package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Memory the engines cannot reach, and the lifetime of registered memory: a segment of a confined
 * arena, of a closed arena, or a heap segment over anything but {@code byte[]} is refused at
 * registration with a message saying why and what to use; a region whose arena is closed while it is
 * registered behaves as if it had been deregistered — every later access fails with the status a
 * deregistered key gets, nothing is written, no thread dies and every work request completes.
 */
abstract class MemoryLifetimeChecks extends SuiteChecks {
    MemoryLifetimeChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void aSegmentOfAConfinedArenaIsRefusedSayingToUseASharedOne() {
        ProtectionDomain pd = rc().a().pd();
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment seg = confined.allocate(SIZE);
            assertThatThrownBy(() -> pd.registerMemory(seg, ALL)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("confined arena").hasMessageContaining("engine threads")
                    .hasMessageContaining("Arena.ofShared()");
            assertThatThrownBy(() -> pd.registerMemory(seg.asByteBuffer(), ALL))
                    .as("a byte buffer over confined memory").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("confined arena");
        }
    }

    @Test
    void aSegmentOfAClosedArenaIsRefused() {
        ProtectionDomain pd = rc().a().pd();
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(SIZE);
        arena.close();
        assertThatThrownBy(() -> pd.registerMemory(seg, ALL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("arena is already closed");
    }

    @Test
    void aHeapSegmentOverAnythingButBytesIsRefusedSayingWhatToUse() {
        ProtectionDomain pd = rc().a().pd();
        assertThatThrownBy(() -> pd.registerMemory(MemorySegment.ofArray(new int[64]), ALL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap segment over int[]")
                .hasMessageContaining("byte[]");
        try (MemoryRegion mr = pd.registerMemory(MemorySegment.ofArray(new byte[64]), ALL)) {
            assertThat(mr.isValid()).as("byte[] heap memory registers").isTrue();
        }
    }

    @Test
    void aSendFromARegionWhoseArenaClosedFailsWithLocProtErrAndNothingArrives() {
        EndpointPair p = rc();
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] before = b.snapshot();
        Arena arena = Arena.ofShared();
        MemoryRegion mr = p.a().onClose(p.a().pd().registerMemory(arena.allocate(SIZE), LOCAL));
        post(p.b(), recv(9, b, 0, SIZE));
        arena.close();
        assertThat(mr.isValid()).as("a region whose memory is gone").isFalse();
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 64));
        expect(p.a(), 1, WcStatus.LOC_PROT_ERR);
        Await.state(p.a().qp(), QpState.ERR);
        b.assertUnchanged(before);
        mr.close();
        assertThat(mr.isValid()).isFalse();
    }

    @Test
    void aWriteIntoARegionWhoseArenaClosedIsRefusedByThePeer() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        Arena arena = Arena.ofShared();
        MemoryRegion sink = p.b().onClose(p.b().pd().registerMemory(arena.allocate(SIZE), ALL));
        arena.close();
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(a.mr(), 0, 64).rdma(sink.address(), sink.rkey()));
        expectRefused(p.a(), 1, WrOpcode.RDMA_WRITE, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void aReceiveIntoARegionWhoseArenaClosedCompletesInErrorAndTheSendCompletes() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        Arena arena = Arena.ofShared();
        MemoryRegion sink = p.b().onClose(p.b().pd().registerMemory(arena.allocate(SIZE), LOCAL));
        post(p.b(), new RecvWr().wrId(9).sg(sink, 0, SIZE));
        arena.close();
        post(p.a().qp(), send(1, a, 0, 64));
        Completion r = one(p.b());
        assertThat(r.wrId()).isEqualTo(9);
        assertThat(r.status()).as("the receive into memory that is gone").isEqualTo(WcStatus.LOC_PROT_ERR);
        Completion s = one(p.a());
        assertThat(s.wrId()).as("the SEND completes too, once").isEqualTo(1);
        Await.state(p.b().qp(), QpState.ERR);
    }
}
