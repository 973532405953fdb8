package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Device, port and GID queries ({@code ibv_get_device_list}, {@code ibv_query_device/port/gid}). */
abstract class DeviceChecks extends SuiteChecks {
    @Override
    boolean hostLocal() {
        return true;
    }

    DeviceChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void theDeviceIsListedAndCanBeFoundByName() {
        Device d = fixture().device();
        assertThat(Rdma.devices()).extracting(Device::name).contains(d.name());
        assertThat(Rdma.device(d.name()).name()).isEqualTo(d.name());
        assertThat(d.provider()).isNotBlank();
    }

    @Test
    void anUnknownDeviceNameIsEnodev() {
        assertThatThrownBy(() -> Rdma.device("no-such-device0"))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV))
                .hasMessageContaining("no-such-device0");
    }

    @Test
    void queryDeviceReportsUsableLimitsThatMatchTheFeatures() {
        Context ctx = openContext();
        DeviceAttributes a = ctx.queryDevice();
        assertThat(a.nodeGuid()).isEqualTo(fixture().device().nodeGuid());
        assertThat(a.maxQp()).isPositive();
        assertThat(a.maxQpWr()).isGreaterThanOrEqualTo(16);
        assertThat(a.maxSge()).isGreaterThanOrEqualTo(1);
        assertThat(a.maxSgeRd()).isGreaterThanOrEqualTo(1);
        assertThat(a.maxCq()).isPositive();
        assertThat(a.maxCqe()).isGreaterThanOrEqualTo(64);
        assertThat(a.maxMr()).isPositive();
        assertThat(a.maxPd()).isPositive();
        assertThat(a.maxMrSize()).isGreaterThanOrEqualTo(1L << 20);
        assertThat(a.physPortCnt()).isGreaterThanOrEqualTo(1);
        assertThat(a.maxInlineData()).isGreaterThanOrEqualTo(features().maxInline());
        assertThat(a.atomicCap() != AtomicCap.NONE).as("atomic_cap %s vs features", a.atomicCap())
                .isEqualTo(features().atomics());
        if (features().srq()) {
            assertThat(a.maxSrq()).isPositive();
            assertThat(a.maxSrqWr()).isPositive();
            assertThat(a.maxSrqSge()).isPositive();
        }
    }

    @Test
    void portOneIsActiveAndPortsOutsideTheDeviceAreRejected() {
        Context ctx = openContext();
        PortAttributes p = ctx.queryPort(1);
        assertThat(p.state()).isEqualTo(PortState.ACTIVE);
        assertThat(p.activeMtu().bytes()).isLessThanOrEqualTo(p.maxMtu().bytes());
        assertThat(p.gidTableLength()).isPositive();
        assertThat(p.maxMsgSize()).isGreaterThanOrEqualTo(1L << 20);
        int ports = ctx.queryDevice().physPortCnt();
        assertThatThrownBy(() -> ctx.queryPort(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port 0");
        assertThatThrownBy(() -> ctx.queryPort(ports + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port " + (ports + 1));
    }

    @Test
    void gidZeroIsAnAddressTheDeviceServesAndIndicesOutsideTheTableAreRejected() {
        Context ctx = openContext();
        Gid gid = ctx.queryGid(1, 0);
        assertThat(gid).isNotEqualTo(Gid.ZERO);
        if (features().gidIsAddress()) {
            assertThat(fixture().device().servesAddress(gid.toInetAddress())).as("device serves %s", gid).isTrue();
        }
        int len = ctx.queryPort(1).gidTableLength();
        assertThatThrownBy(() -> ctx.queryGid(1, len)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("GID index " + len);
        assertThatThrownBy(() -> ctx.queryGid(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ctx.queryGid(2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClosedContextRejectsFurtherCalls() {
        Context ctx = fixture().device().open();
        ctx.close();
        assertThatThrownBy(ctx::allocPd).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(ctx::queryDevice).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ctx.createCq(4)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingAContextReleasesWhatTheApplicationLeftOpen() {
        Context ctx = fixture().device().open();
        QueuePair qp = standaloneQp(ctx, QpType.RC);
        ProtectionDomain pd = qp.pd();
        ctx.close();
        assertThatThrownBy(() -> qp.postRecv(new RecvWr().wrId(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("destroyed");
        assertThatThrownBy(() -> pd.registerMemory(MemorySegment.ofArray(new byte[64]), 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
