package io.jrdma.internal.cm.ib;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Reject reasons carry Linux's numbers and ibcm_reject_msg()'s texts. */
class RejReasonTest {

    @Test
    void theNumbersRdmaCmAndIbCmUseAreLinuxs() {
        assertThat(RejReason.CONSUMER_DEFINED.code()).isEqualTo(28);
        assertThat(RejReason.TIMEOUT.code()).isEqualTo(4);
        assertThat(RejReason.INVALID_SERVICE_ID.code()).isEqualTo(8);
        assertThat(RejReason.STALE_CONN.code()).isEqualTo(10);
        assertThat(RejReason.VENDOR_OPTION_NOT_SUPPORTED.code()).isEqualTo(35);
        assertThat(RejReason.NO_QP.code()).isEqualTo(1);
        assertThat(RejReason.INVALID_ALT_FLOW_LABEL.code()).isEqualTo(33);
    }

    @Test
    void codesOneToThirtyThreeAndThirtyFiveAreDefinedAndNothingElse() {
        assertThat(Arrays.stream(RejReason.values()).mapToInt(RejReason::code)).doesNotHaveDuplicates()
                .hasSize(34);
        for (int code = -1; code < 40; code++) {
            boolean defined = code >= 1 && code <= 35 && code != 34;
            assertThat(RejReason.fromCode(code) != null).as("code %d", code).isEqualTo(defined);
            if (defined) {
                assertThat(RejReason.fromCode(code).code()).isEqualTo(code);
            }
        }
    }

    @Test
    void messagesAreWhatIbcmRejectMsgPrints() {
        assertThat(RejReason.message(28)).isEqualTo("consumer defined");
        assertThat(RejReason.message(4)).isEqualTo("timeout");
        assertThat(RejReason.message(8)).isEqualTo("invalid service ID");
        assertThat(RejReason.message(10)).isEqualTo("stale conn");
        assertThat(RejReason.message(27)).isEqualTo("insufficient resp resources");
        assertThat(RejReason.message(35)).isEqualTo("vendor option is not supported");
        assertThat(RejReason.message(34)).isEqualTo("unrecognized reason");
        assertThat(RejReason.message(0)).isEqualTo("unrecognized reason");
        assertThat(RejReason.message(70000)).isEqualTo(RejReason.UNRECOGNIZED);
    }
}
