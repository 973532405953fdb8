package io.jrdma.rxe.qp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetransmitTimeoutTest {
    private static final long MS = 1_000_000;
    private static final long ACK_TIMEOUT = 1073 * MS;

    @Test
    void withoutASampleTheTimeoutIsTheInitialOneBackedOffUpToTheQpsAckTimeout() {
        RetransmitTimeout t = new RetransmitTimeout();
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(RetransmitTimeout.INITIAL_RTO_NANOS);
        assertThat(t.rto(4 * MS)).as("never above the ACK timeout").isEqualTo(4 * MS);
        t.backOff();
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(2 * RetransmitTimeout.INITIAL_RTO_NANOS);
        for (int i = 0; i < 20; i++) {
            t.backOff();
        }
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(ACK_TIMEOUT);
    }

    @Test
    void aShortRoundTripGivesTheFloor() {
        RetransmitTimeout t = new RetransmitTimeout();
        for (int i = 0; i < 20; i++) {
            t.sample(100_000); // 100 µs
        }
        assertThat(t.srtt()).isEqualTo(100_000);
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(RetransmitTimeout.MIN_RTO_NANOS);
    }

    @Test
    void theTimeoutFollowsTheSmoothedRoundTripAndItsVariation() {
        RetransmitTimeout t = new RetransmitTimeout();
        t.sample(10 * MS);
        // RFC 6298 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(30 * MS);
        t.sample(10 * MS);
        // 2.3: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'|, SRTT = 7/8 SRTT + 1/8 R'
        assertThat(t.srtt()).isEqualTo(10 * MS);
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(10 * MS + 4 * (5 * MS * 3 / 4));
        for (int i = 0; i < 100; i++) {
            t.sample(20 * MS);
        }
        assertThat(t.srtt()).isBetween(19 * MS, 20 * MS);
        assertThat(t.rto(ACK_TIMEOUT)).isBetween(19 * MS, 21 * MS);
    }

    @Test
    void timeoutsDoubleItUpToTheAckTimeoutAndProgressResetsIt() {
        RetransmitTimeout t = new RetransmitTimeout();
        t.sample(10 * MS);
        t.backOff();
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(60 * MS);
        t.backOff();
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(120 * MS);
        for (int i = 0; i < 40; i++) {
            t.backOff();
        }
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(ACK_TIMEOUT);
        assertThat(t.rto(8 * MS)).as("never above the ACK timeout").isEqualTo(8 * MS);
        t.progress();
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(30 * MS);
        t.clear();
        assertThat(t.rto(ACK_TIMEOUT)).isEqualTo(RetransmitTimeout.INITIAL_RTO_NANOS);
    }
}
