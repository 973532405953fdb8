package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Misuse of the public API on kernel devices is an exception, never a JVM crash: heap memory, use after
 * close, double close, a region whose arena closed, closing what is still used. Runs on every
 * {@code native:} device present (skipped where there is none).
 */
class NativeMisuseTest {
    private List<Device> devices;

    @BeforeEach
    void devices() {
        devices = Rdma.devices().stream().filter(d -> d.provider().equals(NativeProvider.NAME)).toList();
        Assumptions.assumeFalse(devices.isEmpty(), () -> "no kernel RDMA device: "
                + Rdma.unavailableProviders().get(NativeProvider.NAME));
    }

    @Test
    void heapMemoryIsRefusedWithAReason() {
        for (Device d : devices) {
            try (Context c = d.open(); ProtectionDomain pd = c.allocPd()) {
                assertThatThrownBy(() -> pd.registerMemory(MemorySegment.ofArray(new byte[4096]), Access.LOCAL_WRITE))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap segment");
                assertThatThrownBy(() -> pd.registerMemory(ByteBuffer.allocate(4096), Access.LOCAL_WRITE))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap ByteBuffer");
                MemoryRegion direct = pd.registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
                assertThat(direct.length()).isEqualTo(4096);
                assertThat(direct.isValid()).isTrue();
                direct.close();
            }
        }
    }

    @Test
    void everyObjectRefusesUseAfterCloseAndClosesTwiceQuietly() throws InterruptedException {
        for (Device d : devices) {
            Context c = d.open();
            ProtectionDomain pd = c.allocPd();
            CompletionChannel ch = c.createCompletionChannel();
            CompletionQueue cq = c.createCq(16, ch, 0);
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 0)));
            MemoryRegion mr = pd.registerMemory(Arena.ofAuto().allocate(4096), Access.LOCAL_WRITE);

            assertThatThrownBy(cq::close).isInstanceOf(RdmaException.class)
                    .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EBUSY));
            assertThatThrownBy(ch::close).isInstanceOf(RdmaException.class);
            assertThatThrownBy(pd::close).isInstanceOf(RdmaException.class);

            qp.close();
            qp.close();
            assertThatThrownBy(() -> qp.postRecv(new RecvWr().wrId(1).sg(mr, 0, 64)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> qp.postSend(new SendWr().opcode(WrOpcode.SEND).sg(mr, 0, 64)))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(qp::query).isInstanceOf(IllegalStateException.class);
            cq.close();
            cq.close();
            assertThatThrownBy(() -> cq.poll(new WorkCompletion[] {new WorkCompletion()}))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> cq.requestNotify(false)).isInstanceOf(IllegalStateException.class);
            assertThat(ch.getEvent(Duration.ofMillis(20))).isNull();
            ch.close();
            assertThatThrownBy(() -> ch.getEvent(Duration.ofMillis(20))).isInstanceOf(IllegalStateException.class);

            mr.close();
            mr.close();
            assertThat(mr.isValid()).as("a closed region").isFalse();
            pd.close();
            assertThatThrownBy(() -> pd.registerMemory(Arena.global().allocate(64), 0))
                    .isInstanceOf(IllegalStateException.class);
            c.close();
            c.close();
            assertThatThrownBy(c::allocPd).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(c::queryDevice).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void memoryThatCanBeFreedWhileRegisteredIsRefusedAndInlineSendsReadOnlyLiveRegions() {
        for (Device d : devices) {
            try (Context c = d.open(); ProtectionDomain pd = c.allocPd(); CompletionQueue cq = c.createCq(8)) {
                try (Arena shared = Arena.ofShared()) {
                    // the device would keep writing the pages after the arena freed them
                    assertThatThrownBy(() -> pd.registerMemory(shared.allocate(4096), Access.LOCAL_WRITE))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("can be closed")
                            .hasMessageContaining(NativePd.ALLOW_CLOSABLE);
                    assertThatThrownBy(() -> pd.registerMemory(shared.allocate(4096).asByteBuffer(),
                            Access.LOCAL_WRITE)).isInstanceOf(IllegalArgumentException.class);
                }
                Arena closed = Arena.ofShared();
                MemorySegment seg = closed.allocate(4096);
                closed.close();
                assertThatThrownBy(() -> pd.registerMemory(seg, Access.LOCAL_WRITE))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already closed");
                try (Arena confined = Arena.ofConfined()) {
                    assertThatThrownBy(() -> pd.registerMemory(confined.allocate(64), Access.LOCAL_WRITE))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confined arena");
                }
                MemoryRegion global = pd.registerMemory(Arena.global().allocate(4096), Access.LOCAL_WRITE);
                assertThat(global.isValid()).isTrue();
                int inline;
                try (QueuePair probe = pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 32)))) {
                    inline = 32;
                } catch (RuntimeException e) {
                    inline = 0;
                }
                if (inline > 0) {
                    try (QueuePair qp = pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 32)))) {
                        // an inline send copies from the SGE's address in this process: only live regions
                        SendWr wild = new SendWr().opcode(WrOpcode.SEND).flags(SendFlags.INLINE);
                        wild.sge(0).set(16, 32, 0);
                        wild.numSge(1);
                        assertThatThrownBy(() -> qp.postSend(wild)).isInstanceOf(IllegalArgumentException.class)
                                .hasMessageContaining("not inside a live region");
                        int sges = qp.initAttr().cap().maxSendSge() + 1;
                        SendWr tooMany = new SendWr(sges).opcode(WrOpcode.SEND).numSge(sges);
                        assertThatThrownBy(() -> qp.postSend(tooMany)).isInstanceOf(IllegalArgumentException.class)
                                .hasMessageContaining("SGEs");
                    }
                }
                global.close();
                assertThat(global.isValid()).isFalse();
            }
        }
    }
}
