package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Protection domains and memory regions ({@code ibv_reg_mr}, {@code ibv_dereg_mr}): registration on
 * native, heap and direct-buffer memory, the access-flag rules, the key format, and that
 * deregistration invalidates the keys at once for local and remote use.
 */
abstract class MemoryChecks extends SuiteChecks {
    @Override
    boolean hostLocal() {
        return true;
    }

    MemoryChecks(SuiteSupport support) {
        super(support);
    }

    /**
     * {@code n} bytes for the tests that are not about the kind of memory: heap memory where the provider
     * registers it, else native memory of an automatic arena (which lives as long as a region holds it).
     */
    MemorySegment plain(int n) {
        return features().heapMemory() ? MemorySegment.ofArray(new byte[n]) : Arena.ofAuto().allocate(n);
    }

    void assumeKind(MemoryKind kind) {
        if (kind == MemoryKind.HEAP) {
            assume(features().heapMemory(), "heap memory regions (the provider registers only native memory)");
        }
    }

    @ParameterizedTest
    @EnumSource(MemoryKind.class)
    void everyKindOfMemoryRegistersWithItsLengthAndAccess(MemoryKind kind) {
        assumeKind(kind);
        Endpoint e = rc().a();
        CanaryBuffer b = buffer(e, kind, SIZE, ALL, 1);
        MemoryRegion mr = b.mr();
        assertThat(mr.length()).isEqualTo(SIZE);
        assertThat(mr.access()).isEqualTo(ALL);
        assertThat(mr.isValid()).isTrue();
        assertThat(mr.pd()).isSameAs(e.pd());
        assertThat(mr.segment().byteSize()).isEqualTo(SIZE);
        assertThat(mr.lkey()).isNotZero();
        if (kind != MemoryKind.HEAP) {
            assertThat(mr.address()).isEqualTo(b.body().address());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
    void remoteWriteAndRemoteAtomicNeedLocalWrite(int access) {
        ProtectionDomain pd = rc().a().pd();
        MemorySegment seg = plain(64);
        boolean legal = (access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) == 0
                || (access & Access.LOCAL_WRITE) != 0;
        if (legal) {
            try (MemoryRegion mr = pd.registerMemory(seg, access)) {
                assertThat(mr.access()).isEqualTo(access);
            }
        } else {
            assertThatThrownBy(() -> pd.registerMemory(seg, access)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LOCAL_WRITE");
        }
    }

    @Test
    void unknownAccessBitsAreRejected() {
        ProtectionDomain pd = rc().a().pd();
        assertThatThrownBy(() -> pd.registerMemory(plain(64), Access.LOCAL_WRITE | 1 << 6))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0x40");
    }

    @Test
    void emptyOrMissingMemoryIsRejected() {
        ProtectionDomain pd = rc().a().pd();
        assertThatThrownBy(() -> pd.registerMemory(plain(0), LOCAL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> pd.registerMemory((MemorySegment) null, LOCAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pd.registerMemory((ByteBuffer) null, LOCAL))
                .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer drained = ByteBuffer.allocateDirect(16).position(16);
        assertThatThrownBy(() -> pd.registerMemory(drained, LOCAL)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readOnlyMemoryCannotBeRegisteredForLocalWrite() {
        ProtectionDomain pd = rc().a().pd();
        MemorySegment ro = plain(64).asReadOnly();
        assertThatThrownBy(() -> pd.registerMemory(ro, LOCAL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("read-only");
        try (MemoryRegion mr = pd.registerMemory(ro, Access.REMOTE_READ)) {
            assertThat(mr.access()).isEqualTo(Access.REMOTE_READ);
        }
    }

    @Test
    void aDirectBufferIsRegisteredFromItsPositionToItsLimit() {
        EndpointPair p = rc();
        ByteBuffer bb = ByteBuffer.allocateDirect(64);
        MemoryRegion mr = p.b().onClose(p.b().pd().registerMemory(bb.position(16).limit(48), ALL));
        assertThat(mr.length()).isEqualTo(32);
        CanaryBuffer src = buffer(p.a(), 64, LOCAL, 7);
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(src.mr(), 0, 32).rdma(mr.address(), mr.rkey()));
        expect(p.a(), 1, WcStatus.SUCCESS);
        awaitPlaced(MemorySegment.ofBuffer(bb.clear()).asSlice(16, 32), src.body().asSlice(0, 32));
        bb.clear();
        for (int i = 0; i < 64; i++) {
            byte want = i >= 16 && i < 48 ? DataPattern.byteAt(7, i - 16) : 0;
            assertThat(bb.get(i)).as("buffer byte %d", i).isEqualTo(want);
        }
    }

    @Test
    void keysAreA24BitIndexAndAn8BitKeyThatChangesWhenAnIndexIsReused() {
        ProtectionDomain pd = rc().a().pd();
        MemorySegment seg = plain(64);
        List<MemoryRegion> live = new ArrayList<>();
        Set<Integer> indices = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            MemoryRegion mr = pd.registerMemory(seg, LOCAL);
            live.add(mr);
            assertThat(indices.add(mr.lkey() >>> 8)).as("index of live key 0x%x is unique", mr.lkey()).isTrue();
        }
        live.forEach(MemoryRegion::close);
        // Register and deregister repeatedly: every key differs from every earlier one, and a key that
        // reuses an index has another 8-bit key.
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            MemoryRegion mr = pd.registerMemory(seg, LOCAL);
            int key = mr.lkey();
            for (int old : seen) {
                assertThat(key).as("key 0x%x vs earlier 0x%x", key, old).isNotEqualTo(old);
            }
            seen.add(key);
            mr.close();
        }
    }

    @Test
    void aProtectionDomainWithRegionsCannotBeClosed() {
        EndpointPair p = rc();
        ProtectionDomain pd = p.b().context().allocPd();
        MemoryRegion mr = pd.registerMemory(plain(64), LOCAL);
        assertThatThrownBy(pd::close).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        mr.close();
        pd.close();
        assertThatThrownBy(() -> pd.registerMemory(plain(64), LOCAL))
                .isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @EnumSource(MemoryKind.class)
    void sendWriteAndReadMoveDataThroughEveryKindOfMemory(MemoryKind kind) {
        assumeKind(kind);
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), kind, SIZE, ALL, 11);
        CanaryBuffer b = buffer(p.b(), kind, SIZE, ALL, 22);
        byte[] bBefore = b.snapshot();
        post(p.b(), recv(9, b, 0, 100));
        post(p.a().qp(), send(1, a, 0, 100));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Completion r = expect(p.b(), 9, WcStatus.SUCCESS);
        assertThat(r.byteLen()).isEqualTo(100);
        assertThat(DataPattern.matches(b.body(), 0, 100, 11)).isTrue();

        post(p.a().qp(), write(2, a, 200, 200, b, 1000));
        expect(p.a(), 2, WcStatus.SUCCESS);
        awaitPlaced(b.body().asSlice(1000, 200), a.body().asSlice(200, 200));
        assertThat(b.body().asSlice(1000, 200).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(a.body().asSlice(200, 200).toArray(ValueLayout.JAVA_BYTE));

        byte[] aBefore = a.snapshot();
        post(p.a().qp(), read(3, a, 3000, 300, b, 2000));
        Completion rd = expect(p.a(), 3, WcStatus.SUCCESS);
        assertThat(rd.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(rd.byteLen()).isEqualTo(300);
        assertThat(a.body().asSlice(3000, 300).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(Arrays.copyOfRange(bBefore, 2000, 2300));
        a.assertOnlyChanged(aBefore, 3000, 300);
        b.assertGuardsIntact();
    }

    @Test
    void aDeregisteredLkeyFailsLocallyWithLocProtErr() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        byte[] bBefore = b.snapshot();
        post(p.b(), recv(9, b, 0, SIZE));
        SendWr wr = send(1, a, 0, 64);
        a.mr().close();
        assertThat(a.mr().isValid()).isFalse();
        post(p.a().qp(), wr);
        expectBadLocalKey(p.a(), 1);
        Await.state(p.a().qp(), QpState.ERR);
        b.assertUnchanged(bBefore);
    }

    @Test
    void aDeregisteredRkeyFailsRemotelyWithRemAccessErrAndNothingIsWritten() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, ALL, 2);
        byte[] bBefore = b.snapshot();
        SendWr wr = write(1, a, 0, 64, b, 0);
        b.mr().close();
        post(p.a().qp(), wr);
        expectRefused(p.a(), 1, WrOpcode.RDMA_WRITE, WcStatus.REM_ACCESS_ERR);
        b.assertUnchanged(bBefore);
    }

    @Test
    void aStaleKeyDoesNotReachARegionRegisteredAfterIt() {
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer old = buffer(p.b(), SIZE, ALL, 2);
        int staleRkey = old.mr().rkey();
        old.mr().close();
        CanaryBuffer fresh = buffer(p.b(), SIZE, ALL, 3);
        byte[] before = fresh.snapshot();
        post(p.a().qp(), new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .sg(a.mr(), 0, 64).rdma(fresh.addr(0), staleRkey));
        expectRefused(p.a(), 1, WrOpcode.RDMA_WRITE, WcStatus.REM_ACCESS_ERR);
        fresh.assertUnchanged(before);
    }
}
