package io.jrdma.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class CommLinkTest {

    private static byte[] text(String s, int length) {
        byte[] b = new byte[length];
        byte[] t = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, 0, Math.min(t.length, length));
        return b;
    }

    @Test
    void readsTheVersionAsCsAtofDoesStoppingAtTheNul() {
        byte[] v = text("6.06", 16);
        System.arraycopy("jrdma".getBytes(StandardCharsets.US_ASCII), 0, v, 5, 5);
        assertThat(CommLink.atof(v)).isEqualTo(6.06);
        assertThat(CommLink.cString(v)).isEqualTo("6.06");
    }

    @Test
    void readsTheMtuCodeFromItsTwoBytes() {
        assertThat(CommLink.atof(text("3", 2))).isEqualTo(3.0);
        assertThat(CommLink.atof(text("5", 2))).isEqualTo(5.0);
    }

    @Test
    void aMissingNumberReadsAsZeroAsAtofDoes() {
        assertThat(CommLink.atof(text("abc", 16))).isZero();
        assertThat(CommLink.atof(new byte[16])).isZero();
        assertThat(CommLink.atof(text("5.70rc1", 16))).isEqualTo(5.70);
    }
}
