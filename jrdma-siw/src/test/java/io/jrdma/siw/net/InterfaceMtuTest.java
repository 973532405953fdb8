package io.jrdma.siw.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.NetworkInterface;
import org.junit.jupiter.api.Test;

/** The MTU cache siw sizes FPDUs from: the interface's MTU, looked up once per second per address. */
class InterfaceMtuTest {
    @Test
    void theLoopbackMtuIsTheInterfacesAndIsLookedUpOncePerSecond() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        int expected = NetworkInterface.getByInetAddress(lo).getMTU();
        long before = InterfaceMtu.reads();
        for (int i = 0; i < 1_000; i++) {
            assertThat(InterfaceMtu.of(lo)).isEqualTo(expected);
        }
        // One lookup, or two if the run crossed the end of an entry's second.
        assertThat(InterfaceMtu.reads() - before).isBetween(0L, 2L);
    }

    @Test
    void anAddressNoInterfaceHoldsHasNoMtu() throws Exception {
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): no host interface holds it.
        assertThat(InterfaceMtu.of(InetAddress.getByName("192.0.2.77"))).isEqualTo(-1);
    }
}
