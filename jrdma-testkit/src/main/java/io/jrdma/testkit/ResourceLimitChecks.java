package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.SrqAttr;
import org.junit.jupiter.api.Test;

/** Creating resources beyond the device limits is a clear error naming the limit. */
abstract class ResourceLimitChecks extends SuiteChecks {
    @Override
    boolean hostLocal() {
        return true;
    }

    ResourceLimitChecks(SuiteSupport support) {
        super(support);
    }

    @Test
    void aQpBeyondTheDeviceLimitsIsRejectedNamingTheLimit() {
        Context ctx = openContext();
        DeviceAttributes da = ctx.queryDevice();
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(16);
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, new QpCap(da.maxQpWr() + 1, 4, 1, 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_qp_wr");
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, new QpCap(4, da.maxQpWr() + 1, 1, 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_qp_wr");
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, da.maxSge() + 1, 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_sge");
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, da.maxSge() + 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_sge");
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, da.maxInlineData() + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("inline");
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(cq, new QpCap(0, 4, 1, 1, 0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_send_wr");
        assertThatThrownBy(() -> new QpCap(-1, 4, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aQpCannotUseACqOfAnotherContext() {
        Context ctx = openContext();
        Context other = openContext();
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue foreign = other.createCq(16);
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.rc(foreign, QpCap.of(4, 4))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("context");
    }

    @Test
    void aQpTypeTheTransportLacksIsRejected() {
        assume(!features().uc() || !features().ud(), "a transport without UC or UD");
        Context ctx = openContext();
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(16);
        QpType missing = features().uc() ? QpType.UD : QpType.UC;
        assertThatThrownBy(() -> pd.createQp(QpInitAttr.of(missing, cq, QpCap.of(4, 4))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(missing.name());
    }

    @Test
    void aCqBeyondMaxCqeAndAnSrqBeyondItsLimitsAreRejected() {
        Context ctx = openContext();
        DeviceAttributes da = ctx.queryDevice();
        assertThatThrownBy(() -> ctx.createCq(da.maxCqe() + 1)).isInstanceOf(IllegalArgumentException.class);
        if (features().srq()) {
            ProtectionDomain pd = ctx.allocPd();
            assertThatThrownBy(() -> pd.createSrq(new SrqAttr(4, da.maxSrqSge() + 1, 0)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_srq_sge");
        }
    }
}
