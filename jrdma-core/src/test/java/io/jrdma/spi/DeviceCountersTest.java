package io.jrdma.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Counters;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceCountersTest {

    @Test
    void theTotalsAddEngineSetsTheSharedSetLiveQpsAndDestroyedOnes() {
        DeviceCounters d = new DeviceCounters("dev0", List.of(Counter.SENT_PKTS, Counter.RCVD_PKTS));
        CounterSet engine = d.newEngineSet();
        engine.add(Counter.SENT_PKTS, 3);
        d.shared().inc(Counter.SENT_PKTS);
        CounterSet qp1 = new CounterSet();
        CounterSet qp2 = new CounterSet();
        d.qpCreated(1, qp1);
        d.qpCreated(2, qp2);
        qp1.add(Counter.SENT_PKTS, 10);
        qp2.inc(Counter.SENT_PKTS);
        assertThat(d.get(Counter.SENT_PKTS)).isEqualTo(15);
        assertThat(d.liveQpCount()).isEqualTo(2);

        long before = System.nanoTime();
        d.qpDestroyed(1, qp1);
        qp1.add(Counter.SENT_PKTS, 100); // written after its QP was retired: no longer counted
        assertThat(d.get(Counter.SENT_PKTS)).isEqualTo(15);
        assertThat(d.liveQps()).extracting(Counters::qpNum).containsExactly(2);
        assertThat(d.destroyedSince(before)).singleElement().satisfies(c -> {
            assertThat(c.qpNum()).isEqualTo(1);
            assertThat(c.get(Counter.SENT_PKTS)).isEqualTo(10);
        });
        Counters snap = d.snapshot();
        assertThat(snap.get(Counter.SENT_PKTS)).isEqualTo(15);
        assertThat(snap.has(Counter.RCVD_PKTS)).as("a kept counter shows at zero").isTrue();
    }

    @Test
    void retiringASetThatIsNotTheLiveOneOfItsQpChangesNothing() {
        DeviceCounters d = new DeviceCounters("dev0", List.of());
        CounterSet live = new CounterSet();
        d.qpCreated(7, live);
        live.inc(Counter.SENT_PKTS);
        CounterSet stranger = new CounterSet();
        stranger.add(Counter.SENT_PKTS, 5);
        d.qpDestroyed(7, stranger);
        assertThat(d.liveQpCount()).isEqualTo(1);
        assertThat(d.get(Counter.SENT_PKTS)).isEqualTo(1);
    }

    @Test
    void badArgumentsAreRefusedAtTheCall() {
        assertThatThrownBy(() -> new DeviceCounters(" ", List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> new DeviceCounters("dev0", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kept");
        DeviceCounters d = new DeviceCounters("dev0", List.of());
        assertThatThrownBy(() -> d.qpCreated(1, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
