package io.jrdma.internal.verbs;

import static io.jrdma.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.jrdma.verbs.QpAttrMask.ALT_PATH;
import static io.jrdma.verbs.QpAttrMask.AV;
import static io.jrdma.verbs.QpAttrMask.CUR_STATE;
import static io.jrdma.verbs.QpAttrMask.DEST_QPN;
import static io.jrdma.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.jrdma.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.jrdma.verbs.QpAttrMask.PATH_MIG_STATE;
import static io.jrdma.verbs.QpAttrMask.PATH_MTU;
import static io.jrdma.verbs.QpAttrMask.PKEY_INDEX;
import static io.jrdma.verbs.QpAttrMask.PORT;
import static io.jrdma.verbs.QpAttrMask.QKEY;
import static io.jrdma.verbs.QpAttrMask.RETRY_CNT;
import static io.jrdma.verbs.QpAttrMask.RNR_RETRY;
import static io.jrdma.verbs.QpAttrMask.RQ_PSN;
import static io.jrdma.verbs.QpAttrMask.SQ_PSN;
import static io.jrdma.verbs.QpAttrMask.STATE;
import static io.jrdma.verbs.QpAttrMask.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link QpTransitions} against the kernel's {@code qp_state_table} (drivers/infiniband/core/verbs.c),
 * restated here independently, for every (type, from, to) and every attribute bit.
 */
class QpTransitionsTest {
    private static final int ALL_BITS = (1 << 21) - 1;

    static Stream<Arguments> everyPair() {
        List<Arguments> all = new ArrayList<>();
        for (QpType t : QpType.values()) {
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    all.add(Arguments.of(t, from, to));
                }
            }
        }
        return all.stream();
    }

    /** Kernel validity, except SQE→RTS for RC, which jrdma drops (an RC QP has no SQE). */
    static boolean valid(QpType type, QpState from, QpState to) {
        if (to == QpState.RESET) {
            return true;
        }
        if (to == QpState.ERR) {
            return from != QpState.RESET;
        }
        return switch (from) {
            case RESET -> to == QpState.INIT;
            case INIT -> to == QpState.INIT || to == QpState.RTR;
            case RTR -> to == QpState.RTS;
            case RTS, SQD -> to == QpState.RTS || to == QpState.SQD;
            case SQE -> to == QpState.RTS && type != QpType.RC;
            case ERR -> false;
        };
    }

    static int required(QpType type, QpState from, QpState to) {
        if (from == QpState.RESET && to == QpState.INIT) {
            return type == QpType.UD ? PKEY_INDEX | PORT | QKEY : PKEY_INDEX | PORT | ACCESS_FLAGS;
        }
        if (from == QpState.INIT && to == QpState.RTR) {
            return switch (type) {
                case RC -> AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
                case UC -> AV | PATH_MTU | DEST_QPN | RQ_PSN;
                case UD -> 0;
            };
        }
        if (from == QpState.RTR && to == QpState.RTS) {
            return type == QpType.RC ? TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC : SQ_PSN;
        }
        return 0;
    }

    static int optional(QpType type, QpState from, QpState to) {
        if (from == QpState.INIT && to == QpState.INIT) {
            return type == QpType.UD ? PKEY_INDEX | PORT | QKEY : PKEY_INDEX | PORT | ACCESS_FLAGS;
        }
        if (from == QpState.INIT && to == QpState.RTR) {
            return type == QpType.UD ? PKEY_INDEX | QKEY : ALT_PATH | ACCESS_FLAGS | PKEY_INDEX;
        }
        if ((from == QpState.RTR || from == QpState.RTS || from == QpState.SQD) && to == QpState.RTS) {
            return switch (type) {
                case RC -> CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE;
                case UC -> CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE;
                case UD -> CUR_STATE | QKEY;
            };
        }
        if (from == QpState.RTS && to == QpState.SQD) {
            return EN_SQD_ASYNC_NOTIFY;
        }
        if (from == QpState.SQD && to == QpState.SQD) {
            return switch (type) {
                case RC -> PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC
                        | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE;
                case UC -> AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE;
                case UD -> PKEY_INDEX | QKEY;
            };
        }
        if (from == QpState.SQE && to == QpState.RTS) {
            return type == QpType.UD ? CUR_STATE | QKEY : CUR_STATE | ACCESS_FLAGS;
        }
        return 0;
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("everyPair")
    void validityFollowsTheKernelTable(QpType type, QpState from, QpState to) {
        assertThat(QpTransitions.isValid(from, to, type)).isEqualTo(valid(type, from, to));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("everyPair")
    void requiredAndOptionalMasksFollowTheKernelTable(QpType type, QpState from, QpState to) {
        if (!valid(type, from, to)) {
            return;
        }
        assertThat(QpAttrMask.toString(QpTransitions.required(from, to, type)))
                .isEqualTo(QpAttrMask.toString(required(type, from, to)));
        assertThat(QpAttrMask.toString(QpTransitions.optional(from, to, type)))
                .isEqualTo(QpAttrMask.toString(optional(type, from, to)));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("everyPair")
    void checkAcceptsExactlyTheRequiredPlusAnyOptionalAttributes(QpType type, QpState from, QpState to) {
        if (!valid(type, from, to)) {
            assertThatThrownBy(() -> QpTransitions.check(from, to, STATE | required(type, from, to), type, 0x11))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining(from + " -> " + to);
            return;
        }
        int req = required(type, from, to);
        int opt = optional(type, from, to);
        assertThatCode(() -> QpTransitions.check(from, to, STATE | req, type, 0x11)).doesNotThrowAnyException();
        assertThatCode(() -> QpTransitions.check(from, to, STATE | req | opt, type, 0x11))
                .doesNotThrowAnyException();
        for (int bit = 2; bit <= ALL_BITS; bit <<= 1) {
            int b = bit;
            if ((req & b) != 0) {
                assertThatThrownBy(() -> QpTransitions.check(from, to, STATE | (req & ~b), type, 0x11))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requires")
                        .hasMessageContaining(QpAttrMask.toString(b));
            } else if ((opt & b) == 0) {
                assertThatThrownBy(() -> QpTransitions.check(from, to, STATE | req | b, type, 0x11))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not allow")
                        .hasMessageContaining(QpAttrMask.toString(b));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyPair")
    void aMaskWithoutStateChecksTheStayInTheCurrentState(QpType type, QpState from, QpState ignored) {
        if (ignored != QpState.RESET) {
            return;
        }
        int opt = optional(type, from, from);
        if (valid(type, from, from)) {
            assertThatCode(() -> QpTransitions.check(from, null, required(type, from, from) | opt, type, 0x11))
                    .doesNotThrowAnyException();
        } else {
            assertThatThrownBy(() -> QpTransitions.check(from, null, QKEY, type, 0x11))
                    .isInstanceOf(IllegalStateException.class);
        }
    }
}
