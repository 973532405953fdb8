package io.jrdma.internal.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The ephemeral range: Linux's default ip_local_port_range, or jrdma.cm.ephemeralPorts. */
class PortTableRangeTest {
    @AfterEach
    void clear() {
        System.clearProperty(PortTable.RANGE_PROPERTY);
    }

    @Test
    void withoutThePropertyTheRangeIsLinuxsDefault() {
        assertThat(PortTable.ephemeralRange()).containsExactly(32768, 60999);
    }

    @Test
    void thePropertyNarrowsTheRange() {
        System.setProperty(PortTable.RANGE_PROPERTY, " 40000 - 40009 ");
        assertThat(PortTable.ephemeralRange()).containsExactly(40000, 40009);
    }

    @ParameterizedTest
    @ValueSource(strings = {"40000", "40009-40000", "0-10", "1-65536", "a-b", "1-2-3", ""})
    void aMalformedRangeIsRejectedNamingTheProperty(String v) {
        System.setProperty(PortTable.RANGE_PROPERTY, v);
        assertThatThrownBy(PortTable::ephemeralRange).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(PortTable.RANGE_PROPERTY).hasMessageContaining("LOW-HIGH");
    }
}
