package io.jrdma.spi.ibcm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Octets is an immutable byte string with value equality. */
class OctetsTest {

    @Test
    void copiesInAndOut() {
        byte[] b = {1, 2, 3};
        Octets o = Octets.of(b);
        b[0] = 9;
        assertThat(o.get(0)).isEqualTo((byte) 1);
        o.toByteArray()[1] = 9;
        assertThat(o.get(1)).isEqualTo((byte) 2);
    }

    @Test
    void resizesByCuttingOrZeroPadding() {
        Octets o = Octets.of(new byte[] {1, 2, 3});
        assertThat(o.resize(5)).isEqualTo(Octets.of(new byte[] {1, 2, 3, 0, 0}));
        assertThat(o.resize(2)).isEqualTo(Octets.of(new byte[] {1, 2}));
        assertThat(o.resize(3)).isSameAs(o);
        assertThat(Octets.of(new byte[0])).isSameAs(Octets.empty());
    }

    @Test
    void printsHexAndSummarisesTrailingZeros() {
        assertThat(Octets.of(new byte[] {0x00, 0x40, (byte) 0x95, 0, 0})).hasToString("004095(+2 zero bytes)");
        assertThat(Octets.of(new byte[] {1, 2})).hasToString("0102");
        assertThat(Octets.of(new byte[] {1, 2}).hashCode()).isEqualTo(Octets.of(new byte[] {1, 2}).hashCode());
    }
}
