package io.jrdma.tools.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RxeEnvTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10.0.4.2|rxe0:10.0.4.2",
        "rxe0:127.0.0.1,rxe1:127.0.0.2|rxe0:127.0.0.1,rxe1:127.0.0.2",
        " 10.0.4.2 , 10.0.4.3 |rxe0:10.0.4.2,rxe1:10.0.4.3",
        "rxe6:[::1]|rxe6:[::1]",
        "::1|rxe0:::1",
        "[fe80::1]|rxe0:[fe80::1]",
        "roce_a:192.0.2.1,192.0.2.2|roce_a:192.0.2.1,rxe1:192.0.2.2",
    })
    void bareAddressesAreNamedByTheirPositionAndNamedOnesAreKept(String env, String spec) {
        assertThat(RxeEnv.deviceSpec(env)).isEqualTo(spec);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rxe0", "rxe0:", "rxe0:eth0", "rxe0:host.example", "10.0.4", "300.0.0.1", "1:2:3",
        "0rxe:10.0.0.1", ",", "rxe0:10.0.0.1,rxe0:10.0.0.2", "[::1"})
    void anythingButIpLiteralsIsRefusedWithTheVariablesName(String env) {
        assertThatThrownBy(() -> RxeEnv.deviceSpec(env)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("JRDMA_RXE ");
    }

    @Test
    void theVariableSetsThePropertyOnlyWhenTheUserDidNotSetItHimself() {
        Properties p = new Properties();
        assertThat(RxeEnv.apply(null, p)).isFalse();
        assertThat(RxeEnv.apply("  ", p)).isFalse();
        assertThat(p).isEmpty();
        assertThat(RxeEnv.apply("10.0.4.2", p)).isTrue();
        assertThat(p.getProperty("jrdma.rxe.devices")).isEqualTo("rxe0:10.0.4.2");

        Properties explicit = new Properties();
        explicit.setProperty("jrdma.rxe.devices", "rxe1:127.0.0.2");
        assertThat(RxeEnv.apply("10.0.4.2", explicit)).isFalse();
        assertThat(explicit.getProperty("jrdma.rxe.devices")).isEqualTo("rxe1:127.0.0.2");
    }
}
