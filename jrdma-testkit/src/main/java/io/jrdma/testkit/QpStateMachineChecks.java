package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The QP state machine ({@code ibv_modify_qp}), table-driven over every (type, state, target)
 * against {@link IbtaQpTable}: legal transitions succeed, illegal ones throw
 * {@link IllegalStateException}; a missing required or a disallowed attribute throws
 * {@link IllegalArgumentException} naming it; out-of-range values are rejected the same way.
 */
abstract class QpStateMachineChecks extends SuiteChecks {
    @Override
    boolean hostLocal() {
        return true;
    }

    /** Every attribute bit {@link QpAttr} has a setter for. */
    static final int[] SETTABLE = {QpAttrMask.CUR_STATE, QpAttrMask.EN_SQD_ASYNC_NOTIFY, QpAttrMask.ACCESS_FLAGS,
        QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY, QpAttrMask.AV, QpAttrMask.PATH_MTU,
        QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.RQ_PSN,
        QpAttrMask.MAX_QP_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER, QpAttrMask.SQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC,
        QpAttrMask.CAP, QpAttrMask.DEST_QPN};

    QpStateMachineChecks(SuiteSupport support) {
        super(support);
    }

    /** Every (type, from, to), except from SQE on RC (an RC QP never is in SQE). */
    static Stream<Arguments> everyPair() {
        List<Arguments> all = new ArrayList<>();
        for (QpType t : QpType.values()) {
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    if (t != QpType.RC || from != QpState.SQE) {
                        all.add(Arguments.of(t, from, to));
                    }
                }
            }
        }
        return all.stream();
    }

    static Stream<Arguments> legalTransitions() {
        return everyPair().filter(a -> IbtaQpTable.legal((QpState) a.get()[1], (QpState) a.get()[2],
                (QpType) a.get()[0]));
    }

    static Stream<Arguments> transitionsWithRequiredAttributes() {
        return legalTransitions().filter(a -> IbtaQpTable.required((QpState) a.get()[1], (QpState) a.get()[2],
                (QpType) a.get()[0]) != 0);
    }

    static QpOptions optionsFor(QpType type) {
        return switch (type) {
            case RC -> QpOptions.rc();
            case UC -> QpOptions.uc();
            case UD -> QpOptions.ud();
        };
    }

    void assumeType(QpType type) {
        assume(type == QpType.RC || (type == QpType.UC ? features().uc() : features().ud()), type + " QPs");
    }

    /** Skips a test that takes a QP without a connection to RTS where the device cannot. */
    void assumeModifyToRts() {
        assume(features().modifyToRts(), "RTS without a connection (its QPs reach RTS only through the CM)");
    }

    /**
     * A fresh QP of {@code type} in {@code state} (SQE through a send with a bad lkey, UC/UD only; ERR from
     * RTS, or from RTR where the device takes QPs to RTS only through its CM).
     */
    QueuePair qpIn(QpType type, QpState state) {
        assumeType(type);
        if (state == QpState.SQE) {
            assume(type != QpType.RC, "an SQE state on RC QPs (there is none)");
            assume(features().sendQueueErrorState(), "the SQE state (a failed send moves the QP to ERR)");
        }
        Context ctx = openContext();
        QueuePair qp = standaloneQp(ctx, type);
        Gid gid = ctx.queryGid(1, 0);
        QpOptions o = optionsFor(type);
        if (state == QpState.RESET) {
            return qp;
        }
        ManualConnector.toInit(qp, o);
        if (state == QpState.INIT) {
            return qp;
        }
        ManualConnector.toRtr(qp, o, gid, qp.qpNum());
        if (state == QpState.RTR) {
            return qp;
        }
        if (state == QpState.ERR && !features().modifyToRts()) {
            qp.modify(new QpAttr().qpState(QpState.ERR));
            Await.state(qp, state);
            return qp;
        }
        assumeModifyToRts();
        ManualConnector.toRts(qp, o);
        switch (state) {
            case SQD -> {
                // Linux rxe refuses a modify in SQD until the drain finished (rxe_qp_chk_attr), as IBTA
                // allows attributes to change only in a drained SQD.
                qp.modify(new QpAttr().qpState(QpState.SQD).sqdAsyncNotify(true));
                Await.event(ctx, AsyncEventType.SQ_DRAINED);
            }
            case ERR -> qp.modify(new QpAttr().qpState(QpState.ERR));
            case SQE -> {
                SendWr bad = new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED);
                bad.sge(0).set(0x1000, 8, 0x00ABCD00);
                bad.numSge(1);
                if (type == QpType.UD) {
                    AddressHandle ah = qp.pd().createAh(AhAttr.to(gid));
                    bad.ud(ah, qp.qpNum(), o.qkey());
                }
                post(qp, bad);
                Await.state(qp, QpState.SQE);
            }
            default -> {
            }
        }
        Await.state(qp, state);
        return qp;
    }

    /** Attributes for {@code to} with valid values for every bit of {@code mask}. */
    static QpAttr attrs(QueuePair qp, QpState from, QpState to, int mask) {
        Gid gid = qp.pd().context().queryGid(1, 0);
        QpAttr a = new QpAttr().qpState(to);
        for (int bit : SETTABLE) {
            if ((mask & bit) == 0) {
                continue;
            }
            switch (bit) {
                case QpAttrMask.CUR_STATE -> a.curQpState(from);
                case QpAttrMask.EN_SQD_ASYNC_NOTIFY -> a.sqdAsyncNotify(false);
                case QpAttrMask.ACCESS_FLAGS -> a.qpAccessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE);
                case QpAttrMask.PKEY_INDEX -> a.pkeyIndex(0);
                case QpAttrMask.PORT -> a.portNum(1);
                case QpAttrMask.QKEY -> a.qkey(QpOptions.DEFAULT_QKEY);
                case QpAttrMask.AV -> a.ahAttr(AhAttr.to(gid));
                case QpAttrMask.PATH_MTU -> a.pathMtu(Mtu.MTU_1024);
                case QpAttrMask.TIMEOUT -> a.timeout(14);
                case QpAttrMask.RETRY_CNT -> a.retryCnt(7);
                case QpAttrMask.RNR_RETRY -> a.rnrRetry(7);
                case QpAttrMask.RQ_PSN -> a.rqPsn(0);
                case QpAttrMask.MAX_QP_RD_ATOMIC -> a.maxRdAtomic(1);
                case QpAttrMask.MIN_RNR_TIMER -> a.minRnrTimer(12);
                case QpAttrMask.SQ_PSN -> a.sqPsn(0);
                case QpAttrMask.MAX_DEST_RD_ATOMIC -> a.maxDestRdAtomic(1);
                case QpAttrMask.CAP -> a.cap(qp.initAttr().cap());
                case QpAttrMask.DEST_QPN -> a.destQpNum(qp.qpNum());
                default -> throw new IllegalStateException("no value for " + QpAttrMask.toString(bit));
            }
        }
        return a;
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("everyPair")
    void everyStatePairFollowsTheIbtaTable(QpType type, QpState from, QpState to) {
        if (to == QpState.RTS && IbtaQpTable.legal(from, to, type)) {
            assumeModifyToRts();
        }
        QueuePair qp = qpIn(type, from);
        QpAttr a = attrs(qp, from, to, IbtaQpTable.required(from, to, type));
        if (IbtaQpTable.legal(from, to, type)) {
            qp.modify(a);
            assertThat(qp.state()).isEqualTo(to);
        } else {
            assertThatThrownBy(() -> qp.modify(a)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(from.name()).hasMessageContaining(to.name());
            assertThat(qp.state()).isEqualTo(from);
        }
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("transitionsWithRequiredAttributes")
    void aMissingRequiredAttributeIsRejectedByName(QpType type, QpState from, QpState to) {
        assume(features().ibAttributeMasks(), "IBTA attribute masks (an iWARP QP takes its path from the"
                + " connection)");
        int required = IbtaQpTable.required(from, to, type);
        QueuePair qp = qpIn(type, from);
        for (int bit : SETTABLE) {
            if ((required & bit) == 0) {
                continue;
            }
            QpAttr a = attrs(qp, from, to, required & ~bit);
            assertThatThrownBy(() -> qp.modify(a)).as("modify without " + QpAttrMask.toString(bit))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(QpAttrMask.toString(bit));
            assertThat(qp.state()).isEqualTo(from);
        }
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("legalTransitions")
    void anAttributeTheTransitionDoesNotAllowIsRejectedByName(QpType type, QpState from, QpState to) {
        assume(features().ibAttributeMasks(), "IBTA attribute masks (an iWARP QP takes its path from the"
                + " connection)");
        int allowed = IbtaQpTable.required(from, to, type) | IbtaQpTable.optional(from, to, type);
        QueuePair qp = qpIn(type, from);
        for (int bit : SETTABLE) {
            if ((allowed & bit) != 0) {
                continue;
            }
            QpAttr a = attrs(qp, from, to, IbtaQpTable.required(from, to, type) | bit);
            assertThatThrownBy(() -> qp.modify(a)).as("modify with " + QpAttrMask.toString(bit))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(QpAttrMask.toString(bit));
            assertThat(qp.state()).isEqualTo(from);
        }
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("legalTransitions")
    void everyOptionalAttributeIsAccepted(QpType type, QpState from, QpState to) {
        if (to == QpState.RTS) {
            assumeModifyToRts();
        }
        QueuePair qp = qpIn(type, from);
        int mask = IbtaQpTable.required(from, to, type) | IbtaQpTable.optional(from, to, type);
        if (type == QpType.UC && from == QpState.SQD && to == QpState.SQD && !features().ucAddressChangeInSqd()) {
            // Linux uverbs adds the port to the AV change, which UC may not change here
            // (Features#ucAddressChangeInSqd): refused, and every other optional attribute is taken.
            QpAttr withAv = attrs(qp, from, to, mask);
            assertThatThrownBy(() -> qp.modify(withAv)).isInstanceOf(IllegalArgumentException.class);
            assertThat(qp.state()).isEqualTo(from);
            mask &= ~QpAttrMask.AV;
        }
        qp.modify(attrs(qp, from, to, mask));
        assertThat(qp.state()).isEqualTo(to);
    }

    @Test
    void aCurrentStateThatDoesNotMatchIsIllegalState() {
        QueuePair qp = qpIn(QpType.RC, QpState.RTS);
        assertThatThrownBy(() -> qp.modify(new QpAttr().qpState(QpState.RTS).curQpState(QpState.RTR)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("RTS");
        qp.modify(new QpAttr().qpState(QpState.RTS).curQpState(QpState.RTS));
        assertThat(qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void anEmptyMaskIsRejected() {
        QueuePair qp = qpIn(QpType.RC, QpState.INIT);
        assertThatThrownBy(() -> qp.modify(new QpAttr())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> qp.modify(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void outOfRangeValuesAreRejectedNamingTheAttribute() {
        QueuePair qp = qpIn(QpType.RC, QpState.INIT);
        DeviceAttributes da = qp.pd().context().queryDevice();
        Gid gid = qp.pd().context().queryGid(1, 0);
        rejects(qp, new QpAttr().qpState(QpState.INIT).portNum(da.physPortCnt() + 1), "port");
        rejects(qp, new QpAttr().qpState(QpState.INIT).qpAccessFlags(1 << 7), "access");
        QpAttr rtr = attrs(qp, QpState.INIT, QpState.RTR, IbtaQpTable.required(QpState.INIT, QpState.RTR,
                QpType.RC));
        rejects(qp, new QpAttr(rtr).minRnrTimer(32), "min_rnr_timer");
        rejects(qp, new QpAttr(rtr).destQpNum(1 << 24), "qpn");
        rejects(qp, new QpAttr(rtr).maxDestRdAtomic(da.maxQpRdAtom() + 1), "max_dest_rd_atomic");
        rejects(qp, new QpAttr(rtr).ahAttr(null), "AV");
        qp.modify(new QpAttr(rtr).ahAttr(AhAttr.to(gid)));
        QpAttr rts = attrs(qp, QpState.RTR, QpState.RTS, IbtaQpTable.required(QpState.RTR, QpState.RTS,
                QpType.RC));
        rejects(qp, new QpAttr(rts).timeout(32), "timeout");
        rejects(qp, new QpAttr(rts).retryCnt(8), "retry_cnt");
        rejects(qp, new QpAttr(rts).rnrRetry(8), "rnr_retry");
        rejects(qp, new QpAttr(rts).maxRdAtomic(da.maxQpInitRdAtom() + 1), "max_rd_atomic");
        if (features().modifyToRts()) {
            qp.modify(rts);
            assertThat(qp.state()).isEqualTo(QpState.RTS);
        }
    }

    private static void rejects(QueuePair qp, QpAttr a, String name) {
        QpState before = qp.state();
        assertThatThrownBy(() -> qp.modify(a)).as(a.toString()).isInstanceOf(IllegalArgumentException.class)
                .satisfies(t -> assertThat(t.getMessage()).containsIgnoringCase(name));
        assertThat(qp.state()).isEqualTo(before);
    }

    @Test
    void queryReturnsTheAttributesThatWereApplied() {
        assumeModifyToRts();
        Context ctx = openContext();
        QueuePair qp = standaloneQp(ctx, QpType.RC);
        Gid gid = ctx.queryGid(1, 0);
        QpOptions o = QpOptions.rc().withQpAccess(Access.REMOTE_READ | Access.REMOTE_WRITE).withMinRnrTimer(12)
                .withRnrRetry(3).withRetry(5, 10).withRd(2, 3);
        ManualConnector.bringUp(qp, o, gid, qp.qpNum());
        QpAttr q = qp.query();
        assertThat(q.qpState()).isEqualTo(QpState.RTS);
        assertThat(q.qpAccessFlags()).isEqualTo(Access.REMOTE_READ | Access.REMOTE_WRITE);
        assertThat(q.destQpNum()).isEqualTo(qp.qpNum());
        assertThat(q.pathMtu()).isEqualTo(ManualConnector.PATH_MTU);
        assertThat(q.ahAttr().dgid()).isEqualTo(gid);
        assertThat(q.minRnrTimer()).isEqualTo(12);
        assertThat(q.rnrRetry()).isEqualTo(3);
        assertThat(q.retryCnt()).isEqualTo(5);
        assertThat(q.timeout()).isEqualTo(10);
        // At least what was asked: Linux rxe rounds both up to a power of two (rxe_qp_from_attr), 3 to 4.
        assertThat(q.maxRdAtomic()).isBetween(2, Math.max(2, ctx.queryDevice().maxQpInitRdAtom()));
        assertThat(q.maxDestRdAtomic()).isBetween(3, Math.max(3, ctx.queryDevice().maxQpRdAtom()));
        assertThat(q.portNum()).isEqualTo(1);
        assertThat(q.cap()).isEqualTo(qp.initAttr().cap());
    }

    @Test
    void aDestroyedQpRejectsPostsAndModifies() {
        QueuePair qp = qpIn(QpType.RC, features().modifyToRts() ? QpState.RTS : QpState.INIT);
        qp.close();
        assertThatThrownBy(() -> qp.postSend(new SendWr().wrId(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> qp.postRecv(new RecvWr().wrId(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> qp.modify(new QpAttr().qpState(QpState.RESET)))
                .isInstanceOf(IllegalStateException.class);
        qp.close();
    }

    @Test
    void drainingTheSendQueueWithNotifyRaisesSqDrained() {
        QueuePair qp = qpIn(QpType.RC, QpState.RTS);
        qp.modify(new QpAttr().qpState(QpState.SQD).sqdAsyncNotify(true));
        AsyncEvent e = Await.event(qp.pd().context(), AsyncEventType.SQ_DRAINED);
        assertThat(e.qp().qpNum()).isEqualTo(qp.qpNum());
        assertThat(qp.state()).isEqualTo(QpState.SQD);
    }

    @Test
    void drainingFinishesAStartedSendAndHoldsNewOnesUntilRtsAgain() {
        assume(features().rnrRetry(), "RNR retries (to hold a started SEND)");
        EndpointPair p = rc();
        CanaryBuffer a = buffer(p.a(), SIZE, LOCAL, 1);
        CanaryBuffer b = buffer(p.b(), SIZE, LOCAL, 2);
        // The SEND has begun (it waits in RNR retries) when the QP starts draining.
        post(p.a().qp(), send(1, a, 0, 8));
        Await.noCompletion(p.a().cq(), Await.QUIET);
        p.a().qp().modify(new QpAttr().qpState(QpState.SQD).sqdAsyncNotify(true));
        post(p.a().qp(), send(2, a, 0, 8));
        if (!features().drainFinishesStartedSends()) {
            // Linux 6.1 rxe: the retried SEND counts as not started (Features#drainFinishesStartedSends), so the
            // queue drains at its next retry, both SENDs wait for RTS and then for the next post.
            Await.event(p.a().context(), AsyncEventType.SQ_DRAINED);
            post(p.b(), chain(recv(11, b, 0, 64), recv(12, b, 64, 64), recv(13, b, 128, 64)));
            Await.noCompletion(p.a().cq(), Await.QUIET);
            assertThat(p.a().qp().sendQueueDepth()).as("both SENDs held in SQD").isEqualTo(2);
            p.a().qp().modify(new QpAttr().qpState(QpState.RTS));
            Await.noCompletion(p.a().cq(), Await.QUIET);
            post(p.a().qp(), send(3, a, 0, 8));
            assertThat(Await.completions(p.a().cq(), 3)).extracting(Completion::wrId).containsExactly(1L, 2L, 3L);
            assertThat(Await.completions(p.b().cq(), 3)).extracting(Completion::wrId)
                    .containsExactly(11L, 12L, 13L);
            return;
        }
        assertThat(Await.events(p.a().context(), Await.QUIET)).as("not drained while SEND 1 is outstanding")
                .doesNotContain(AsyncEventType.SQ_DRAINED);
        post(p.b(), chain(recv(11, b, 0, 64), recv(12, b, 64, 64)));
        expect(p.a(), 1, WcStatus.SUCCESS);
        Await.event(p.a().context(), AsyncEventType.SQ_DRAINED);
        Await.noCompletion(p.a().cq(), Await.QUIET);
        assertThat(p.a().qp().sendQueueDepth()).as("SEND 2 was not started in SQD").isEqualTo(1);
        p.a().qp().modify(new QpAttr().qpState(QpState.RTS));
        expect(p.a(), 2, WcStatus.SUCCESS);
        assertThat(Await.completions(p.b().cq(), 2)).extracting(Completion::wrId).containsExactly(11L, 12L);
    }

    @ParameterizedTest
    @EnumSource(QpType.class)
    void aQpStartsInResetWithTheCapacitiesItAskedFor(QpType type) {
        assumeType(type);
        Context ctx = openContext();
        QueuePair qp = standaloneQp(ctx, type);
        assertThat(qp.state()).isEqualTo(QpState.RESET);
        assertThat(qp.type()).isEqualTo(type);
        assertThat(qp.initAttr().cap().maxSendWr()).isGreaterThanOrEqualTo(4);
        assertThat(qp.initAttr().cap().maxRecvWr()).isGreaterThanOrEqualTo(4);
        assertThat(qp.qpNum() & ~0xFFFFFF).isZero();
        // IB reserves QPs 0 and 1 (SMI, GSI); iWARP has no reserved QP numbers (Linux siw numbers from 1).
        assertThat(qp.qpNum()).isGreaterThan(ctx.device().transport() == TransportType.IWARP ? 0 : 1);
    }
}
