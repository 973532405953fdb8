package io.jrdma.siw.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.testkit.ChildJvm;
import io.jrdma.testkit.Netns;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The port follows the host link (issue 2: port active/down async events), end to end: a child JVM in
 * a network namespace opens siw0 on the namespace's veth address; taking that interface down is
 * {@code IBV_EVENT_PORT_ERR} and a DOWN port, bringing it up {@code IBV_EVENT_PORT_ACTIVE} and ACTIVE.
 * Needs root and iproute2 (skipped otherwise).
 */
class PortEventsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void takingTheInterfaceDownAndUpIsPortErrThenPortActive() {
        Netns.assume();
        try (Netns ns = Netns.create("pe");
                ChildJvm child = ChildJvm.start(ns.name(), List.of("-Djrdma.siw.addresses=" + Netns.PEER,
                        "-Djrdma.link.pollMillis=100"), PortWatchMain.class)) {
            child.expect("READY", WAIT);
            child.command("state");
            assertThat(child.expect("STATE", WAIT)).isEqualTo("STATE ACTIVE");
            ns.peerLinkDown();
            assertThat(child.expect("EVENT", WAIT)).isEqualTo("EVENT PORT_ERR 1");
            child.command("state");
            assertThat(child.expect("STATE", WAIT)).isEqualTo("STATE DOWN");
            ns.peerLinkUp();
            assertThat(child.expect("EVENT", WAIT)).isEqualTo("EVENT PORT_ACTIVE 1");
            child.command("state");
            assertThat(child.expect("STATE", WAIT)).isEqualTo("STATE ACTIVE");
            child.command("exit");
        }
    }
}
