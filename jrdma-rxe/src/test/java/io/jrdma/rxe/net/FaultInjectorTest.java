package io.jrdma.rxe.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fault injector: off by default, seeded, and close to the configured rates. */
class FaultInjectorTest {
    @Test
    void withoutSettingsEveryPacketIsSent() {
        FaultInjector f = new FaultInjector(FaultInjector.Settings.NONE);
        for (int i = 0; i < 10_000; i++) {
            assertThat(f.decide()).isEqualTo(FaultInjector.Action.SEND);
        }
    }

    @Test
    void theSameSeedGivesTheSameDecisions() {
        FaultInjector.Settings s = new FaultInjector.Settings(0.1, 0.1, 0.1, 77);
        FaultInjector a = new FaultInjector(s);
        FaultInjector b = new FaultInjector(s);
        List<FaultInjector.Action> x = new ArrayList<>();
        List<FaultInjector.Action> y = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            x.add(a.decide());
            y.add(b.decide());
        }
        assertThat(x).isEqualTo(y);
        b.settings(s); // the same settings again restart nothing: only a new Settings object reseeds
        b.settings(new FaultInjector.Settings(0.1, 0.1, 0.1, 77));
        assertThat(b.decide()).isEqualTo(x.get(0));
    }

    @Test
    void theRatesComeOutAsConfigured() {
        FaultInjector f = new FaultInjector(new FaultInjector.Settings(0.2, 0.05, 0.1, 5));
        Map<FaultInjector.Action, Integer> n = new EnumMap<>(FaultInjector.Action.class);
        int total = 100_000;
        for (int i = 0; i < total; i++) {
            n.merge(f.decide(), 1, Integer::sum);
        }
        assertThat(n.get(FaultInjector.Action.DROP) / (double) total).isBetween(0.19, 0.21);
        assertThat(n.get(FaultInjector.Action.DUPLICATE) / (double) total).isBetween(0.045, 0.055);
        assertThat(n.get(FaultInjector.Action.REORDER) / (double) total).isBetween(0.095, 0.105);
    }

    @Test
    void settingsParseAndCheck() {
        assertThat(FaultInjector.Settings.parse("")).isEqualTo(FaultInjector.Settings.NONE);
        assertThat(FaultInjector.Settings.parse("loss=0.05, duplicate=0.01,reorder=0.02,seed=9"))
                .isEqualTo(new FaultInjector.Settings(0.05, 0.01, 0.02, 9));
        assertThat(FaultInjector.Settings.parse("loss=0.05").active()).isTrue();
        assertThatThrownBy(() -> FaultInjector.Settings.parse("jitter=1")).hasMessageContaining("unknown");
        assertThatThrownBy(() -> FaultInjector.Settings.parse("loss")).hasMessageContaining("key=value");
        assertThatThrownBy(() -> new FaultInjector.Settings(0.6, 0.6, 0, 1)).hasMessageContaining("more than 1");
        assertThatThrownBy(() -> new FaultInjector.Settings(Double.NaN, 0, 0, 1)).hasMessageContaining("loss");
    }
}
