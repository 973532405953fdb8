package io.jrdma.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.RdmaCm;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs the first program over iWARP on 127.0.0.1 and over the in-process provider. */
@Timeout(60)
class FirstProgramTest {
    @ParameterizedTest
    @ValueSource(strings = {"siw0", "loop0"})
    void theServerReceivesTheClientsMessage(String device) {
        assertThat(FirstProgram.run(device)).isEqualTo("hello over RDMA");
        try (RdmaCm cm = RdmaCm.open(device)) {
            assertThat(cm.idCount()).isZero();
        }
    }
}
