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
            Arena arena = Arena.ofShared();
            MemoryRegion mr = pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);

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

            arena.close();
            assertThat(mr.isValid()).as("a region whose arena closed").isFalse();
            mr.close();
            mr.close();
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
    void freedAndUnregisteredMemoryIsNeverReadByTheLibrary() {
        for (Device d : devices) {
            try (Context c = d.open(); ProtectionDomain pd = c.allocPd(); CompletionQueue cq = c.createCq(8)) {
                Arena arena = Arena.ofShared();
                MemorySegment seg = arena.allocate(4096);
                MemoryRegion mr = pd.registerMemory(seg, Access.LOCAL_WRITE);
                arena.close();
                assertThatThrownBy(() -> pd.registerMemory(seg, Access.LOCAL_WRITE))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
                int inline;
                try (QueuePair probe = pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 64)))) {
                    inline = 64;
                } catch (RuntimeException e) {
                    inline = 0;
                }
                Assumptions.assumeTrue(inline > 0, d.name() + " has no inline data");
                try (QueuePair qp = pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 64)))) {
                    // an inline send copies from the SGE's address in this process: a freed region must be refused
                    SendWr w = new SendWr().opcode(WrOpcode.SEND).flags(SendFlags.INLINE).sg(mr, 0, 32);
                    assertThatThrownBy(() -> qp.postSend(w)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("not inside a live region");
                    SendWr wild = new SendWr().opcode(WrOpcode.SEND).flags(SendFlags.INLINE);
                    wild.sge(0).set(16, 32, 0);
                    wild.numSge(1);
                    assertThatThrownBy(() -> qp.postSend(wild)).isInstanceOf(IllegalArgumentException.class);
                    int sges = qp.initAttr().cap().maxSendSge() + 1;
                    SendWr tooMany = new SendWr(sges).opcode(WrOpcode.SEND).numSge(sges);
                    assertThatThrownBy(() -> qp.postSend(tooMany)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("SGEs");
                }
                mr.close();
            }
        }
    }
}
