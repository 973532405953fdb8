package io.jrdma.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

class RpingRdmaInfoTest {

    @Test
    void writesBufRkeyAndSizeBigEndianAsRpingFormatSendDoes() {
        byte[] b = new byte[RpingRdmaInfo.LENGTH];
        new RpingRdmaInfo().wrap(MemorySegment.ofArray(b), 0).set(0x00007f0011223344L, 0x1c05, 64);
        assertThat(HexFormat.of().formatHex(b)).isEqualTo("00007f0011223344" + "00001c05" + "00000040");
    }

    @Test
    void readsWhatItWroteAtAnOffset() {
        byte[] b = new byte[40];
        RpingRdmaInfo i = new RpingRdmaInfo().wrap(MemorySegment.ofArray(b), 24).set(-2L, -3, 65535);
        assertThat(i.buf()).isEqualTo(-2L);
        assertThat(i.rkey()).isEqualTo(-3);
        assertThat(i.size()).isEqualTo(65535);
    }

    @Test
    void optionsRejectSizesOutsideRpingsRangeWithItsMessage() {
        assertThatThrownBy(() -> new RpingOptions(true, null, null, 0, 25, false, false, false, false, null,
                Duration.ofSeconds(1), Duration.ZERO)).hasMessage("Invalid size 25 (valid range is 26 to 65536)");
        assertThat(new RpingOptions(true, null, null, 0, 65535, false, false, false, false, null,
                Duration.ofSeconds(1), Duration.ZERO).size()).isEqualTo(65535);
    }
}
