package io.jrdma.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Reject reasons carry Linux's numbers and ibcm_reject_msg()'s texts. */
class RejectReasonTest {

    @Test
    void theNumbersRdmaCmAndIbCmUseAreLinuxs() {
        assertThat(RejectReason.CONSUMER_DEFINED.value()).isEqualTo(28);
        assertThat(RejectReason.TIMEOUT.value()).isEqualTo(4);
        assertThat(RejectReason.INVALID_SERVICE_ID.value()).isEqualTo(8);
        assertThat(RejectReason.STALE_CONN.value()).isEqualTo(10);
        assertThat(RejectReason.VENDOR_OPTION_NOT_SUPPORTED.value()).isEqualTo(35);
        assertThat(RejectReason.NO_QP.value()).isEqualTo(1);
        assertThat(RejectReason.INVALID_ALT_FLOW_LABEL.value()).isEqualTo(33);
    }

    @Test
    void valuesOneToThirtyThreeAndThirtyFiveAreDefinedAndNothingElse() {
        assertThat(Arrays.stream(RejectReason.values()).mapToInt(RejectReason::value)).doesNotHaveDuplicates()
                .hasSize(34);
        for (int value = -1; value < 40; value++) {
            boolean defined = value >= 1 && value <= 35 && value != 34;
            assertThat(RejectReason.of(value) != null).as("value %d", value).isEqualTo(defined);
            if (defined) {
                assertThat(RejectReason.of(value).value()).isEqualTo(value);
            }
        }
    }

    @Test
    void messagesAreWhatIbcmRejectMsgPrints() {
        assertThat(RejectReason.CONSUMER_DEFINED.message()).isEqualTo("consumer defined");
        assertThat(CmStrings.ibRejectMsg(28)).isEqualTo("consumer defined");
        assertThat(CmStrings.ibRejectMsg(4)).isEqualTo("timeout");
        assertThat(CmStrings.ibRejectMsg(8)).isEqualTo("invalid service ID");
        assertThat(CmStrings.ibRejectMsg(10)).isEqualTo("stale conn");
        assertThat(CmStrings.ibRejectMsg(27)).isEqualTo("insufficient resp resources");
        assertThat(CmStrings.ibRejectMsg(35)).isEqualTo("vendor option is not supported");
        assertThat(CmStrings.ibRejectMsg(34)).isEqualTo("unrecognized reason");
        assertThat(CmStrings.ibRejectMsg(0)).isEqualTo("unrecognized reason");
        assertThat(CmStrings.ibRejectMsg(70000)).isEqualTo("unrecognized reason");
    }
}
