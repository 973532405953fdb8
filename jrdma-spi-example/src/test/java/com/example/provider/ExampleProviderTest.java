package com.example.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.TransportType;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

/** The example provider as a user meets it: found by core, opened and used through the verbs API. */
class ExampleProviderTest {

    @Test
    void coreFindsTheProviderThroughTheModuleThatProvidesIt() {
        // A named module: ServiceLoader took the provider from its module-info, not from META-INF/services.
        assertThat(ExampleProvider.class.getModule().getName()).isEqualTo("com.example.provider");
        Device d = Rdma.device(ExampleProvider.DEVICE);
        assertThat(d.provider()).isEqualTo(ExampleProvider.NAME);
        assertThat(d.transport()).isEqualTo(TransportType.IB);
        assertThat(d.nodeGuid()).isEqualTo(ExampleDevice.NODE_GUID);
        assertThat(Rdma.devices()).contains(d);
        assertThat(Rdma.deviceFor(ExampleDevice.ADDRESS)).isSameAs(d);
    }

    @Test
    void aContextAnswersWithWhatTheProviderDeclares() {
        try (Context ctx = Rdma.device(ExampleProvider.DEVICE).open()) {
            assertThat(ctx.queryDevice()).isEqualTo(ExampleDevice.ATTRIBUTES);
            assertThat(ctx.queryPort(1).state()).isEqualTo(PortState.ACTIVE);
            assertThat(ctx.queryPort(1).activeMtu()).isEqualTo(ExampleDevice.PORT.activeMtu());
            assertThat(ctx.queryGid(1, 0)).isEqualTo(Gid.of(ExampleDevice.ADDRESS));
            Counters c = ctx.queryCounters();
            for (Counter kept : ExampleDevice.KEPT) {
                assertThat(c.has(kept)).as(kept.linuxName()).isTrue();
            }
        }
    }

    @Test
    void coreBuildsPdsRegionsAndQpsAndTellsTheProviderEveryStateChange() {
        try (Context ctx = Rdma.device(ExampleProvider.DEVICE).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            MemoryRegion mr = pd.registerMemory(arena.allocate(4096), Access.LOCAL_WRITE);
            assertThat(mr.length()).isEqualTo(4096);
            CompletionQueue cq = ctx.createCq(16);
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, QpCap.of(4, 4)));

            ExampleQp half = ExampleProvider.device().qp(qp.qpNum());
            assertThat(half).isNotNull();
            assertThat(half.queuePair()).isSameAs(qp);
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Access.LOCAL_WRITE));
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            qp.modify(new QpAttr().qpState(QpState.ERR));
            assertThat(half.transitions()).containsExactly("RESET>INIT", "INIT>ERR");

            qp.close();
            assertThat(half.destroyed()).isTrue();
            assertThat(ExampleProvider.device().qp(qp.qpNum())).isNull();
        }
    }

    @Test
    void coreRefusesWhatTheDeviceSaysItDoesNotSupport() {
        try (Context ctx = Rdma.device(ExampleProvider.DEVICE).open()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(16);
            assertThatThrownBy(() -> pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4))))
                    .hasMessageContaining("UD");
            assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, QpCap.of(ExampleDevice.ATTRIBUTES.maxQpWr() + 1,
                    4)))).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
