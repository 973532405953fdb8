package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.Rdma;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * How many queues a context holds on Linux siw with rdma-core's libsiw (the interop rig's guest): the kernel maps
 * each CQ, SQ and RQ of a context at the lowest free pages of the context's mmap space and hands the page's
 * offset to libsiw as the queue's key; libsiw takes the key 0x90000 (page 144) for its "no queue" value and fails
 * the creation without an errno. A context whose pages 0 to 143 hold live queues therefore refuses every queue that
 * would start at page 144, until one below is freed. jrdma-native's message says so.
 */
class NativeSiwQueueKeyTest {
    /** The first page libsiw refuses: its SIW_INVAL_UOBJ_KEY, 0x90000, over 4 KiB pages. */
    private static final int REFUSED_PAGE = 0x90000 / 4096;

    @Test
    void aContextWhoseFirst144PagesHoldQueuesRefusesTheQueueAtPage144UntilOneIsFreed() {
        NativeDevice d = Rdma.devices().stream().filter(x -> x instanceof NativeDevice n && n.linuxSiw())
                .map(NativeDevice.class::cast).findFirst().orElse(null);
        Assumptions.assumeTrue(d != null, () -> "no Linux siw device: "
                + Rdma.unavailableProviders().getOrDefault(NativeProvider.NAME, "none of the kernel's is siw"));
        try (Context c = d.open()) {
            List<CompletionQueue> cqs = new ArrayList<>();
            RdmaException refused = null;
            // A CQ of one entry (32 bytes and the 8-byte control block) takes one page.
            while (refused == null && cqs.size() <= 2 * REFUSED_PAGE) {
                try {
                    cqs.add(c.createCq(1));
                } catch (RdmaException e) {
                    refused = e;
                }
            }
            assertThat(refused).as("a CQ refused").isNotNull();
            assertThat(cqs).as("CQs on pages 0 to 143").hasSize(REFUSED_PAGE);
            assertThat(refused).hasMessageContaining("ibv_create_cq").hasMessageContaining("0x90000");
            assertThatThrownBy(() -> c.createCq(1)).as("the next one lands on page 144 again")
                    .isInstanceOf(RdmaException.class);
            cqs.remove(0).close();
            cqs.add(c.createCq(1)); // on the page the closed one freed
            assertThatThrownBy(() -> c.createCq(1)).as("page 144 again").isInstanceOf(RdmaException.class);
            for (CompletionQueue cq : cqs) {
                cq.close();
            }
            c.createCq(1).close(); // page 0: the context works on
        }
    }
}
