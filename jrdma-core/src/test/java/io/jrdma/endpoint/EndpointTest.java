package io.jrdma.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The endpoint layer over loop0: connecting, messages, one-sided operations, completions, and closing in any order. */
@Timeout(60)
class EndpointTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aMessageSentByOneEndpointIsReceivedByTheOtherAndBack() {
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT);
                Endpoint client = Endpoint.connect(cm, listener.localAddress());
                Endpoint server = listener.accept(WAIT)) {
            assertThat(server).isNotNull();
            assertThat(client.isOpen()).isTrue();
            assertThat(server.remoteAddress()).isEqualTo(client.localAddress());
            client.send(bytes("ping"));
            try (Message m = server.receive(WAIT)) {
                assertThat(m.text()).isEqualTo("ping");
                assertThat(m.length()).isEqualTo(4);
            }
            server.send(bytes("pong"));
            try (Message m = client.receive(WAIT)) {
                assertThat(m.text()).isEqualTo("pong");
            }
            assertThat(client.receive(Duration.ofMillis(20))).as("nothing more came").isNull();
        }
    }

    @Test
    void moreMessagesThanBuffersFlowWhenEachIsClosedAfterUse() {
        EndpointOptions small = EndpointOptions.defaults().withSlots(2, 2).withMessageSize(64);
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT, small);
                Endpoint client = Endpoint.connect(cm, listener.localAddress(), small);
                Endpoint server = listener.accept(WAIT)) {
            for (int i = 0; i < 200; i++) {
                client.send(bytes("m" + i));
                try (Message m = server.receive(WAIT)) {
                    assertThat(m).as("message %d", i).isNotNull();
                    assertThat(m.text()).isEqualTo("m" + i);
                }
            }
            assertThat(client.sendsOutstanding()).isLessThanOrEqualTo(2);
        }
    }

    @Test
    void aMessageLargerThanTheBuffersIsRefusedAtTheCall() {
        EndpointOptions small = EndpointOptions.defaults().withMessageSize(16);
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT, small);
                Endpoint client = Endpoint.connect(cm, listener.localAddress(), small)) {
            assertThatThrownBy(() -> client.send(new byte[17])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("17 bytes exceeds the endpoint's 16-byte buffers");
        }
    }

    @Test
    void aSendWaitsForAFreeBufferAndSaysSoWhenNoneFreesInTime() {
        // The server holds every message it got: its receive queue empties, the client's SENDs wait in
        // RNR retries, and the client runs out of send buffers.
        EndpointOptions opts = EndpointOptions.defaults().withSlots(1, 1).withTimeout(Duration.ofMillis(300));
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT, opts);
                Endpoint client = Endpoint.connect(cm, listener.localAddress(), opts);
                Endpoint server = listener.accept(WAIT)) {
            client.send(bytes("one"));
            Message held = server.receive(WAIT);
            assertThat(held.text()).isEqualTo("one");
            client.send(bytes("two")); // waits at the server: no receive posted
            assertThatThrownBy(() -> client.send(bytes("three"))).isInstanceOfSatisfying(RdmaException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT))
                    .hasMessageContaining("no send buffer became free within PT0.3S")
                    .hasMessageContaining("all 1 SENDs are still outstanding");
            held.close(); // the buffer goes back: "two" lands
            try (Message m = server.receive(WAIT)) {
                assertThat(m.text()).isEqualTo("two");
            }
        }
    }

    @Test
    void whenThePeerClosesReceiveReturnsWhatCameAndThenSaysTheConnectionEnded() {
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT);
                Endpoint client = Endpoint.connect(cm, listener.localAddress())) {
            Endpoint server = listener.accept(WAIT);
            server.send(bytes("last words"));
            server.close();
            try (Message m = client.receive(WAIT)) {
                assertThat(m.text()).as("what came before the disconnect").isEqualTo("last words");
            }
            assertThatThrownBy(() -> client.receive(WAIT)).isInstanceOfSatisfying(RdmaException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ENOTCONN)).hasMessageContaining("ended");
            assertThatThrownBy(() -> client.send(bytes("x"))).isInstanceOf(RdmaException.class);
            assertThat(client.isOpen()).isFalse();
        }
    }

    @Test
    void aHandlerGetsEveryMessageAndHearsThatThePeerLeft() throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        CompletableFuture<RdmaException> ended = new CompletableFuture<>();
        MessageHandler echo = new MessageHandler() {
            @Override
            public void onMessage(Endpoint ep, Message m) {
                got.add(m.text());
                ep.send(m.data()); // echo from the handler
            }

            @Override
            public void onClosed(Endpoint ep, RdmaException cause) {
                ended.complete(cause);
            }
        };
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT,
                        EndpointOptions.defaults().withHandler(echo))) {
            Endpoint client = Endpoint.connect(cm, listener.localAddress());
            try (Endpoint server = listener.accept(WAIT)) {
                try (client) {
                    for (int i = 0; i < 20; i++) {
                        client.send(bytes("e" + i));
                        try (Message m = client.receive(WAIT)) {
                            assertThat(m.text()).isEqualTo("e" + i);
                        }
                    }
                }
                assertThat(ended.get(10, TimeUnit.SECONDS).errno()).isEqualTo(Errno.ENOTCONN);
                assertThat(got).hasSize(20).startsWith("e0").endsWith("e19");
                assertThatThrownBy(() -> server.receive(WAIT)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("go to its handler");
            }
        }
    }

    @Test
    void connectAsyncCompletesWithTheEndpointOrFailsWithTheConnectsError() throws Exception {
        try (RdmaCm cm = RdmaCm.open("loop0"); EndpointListener listener = EndpointListener.listen(cm, ANY_PORT)) {
            CompletableFuture<Endpoint> pending = Endpoint.connectAsync(cm, listener.localAddress(),
                    EndpointOptions.defaults());
            try (Endpoint server = listener.accept(WAIT); Endpoint client = pending.get(10, TimeUnit.SECONDS)) {
                client.send(bytes("async"));
                try (Message m = server.receive(WAIT)) {
                    assertThat(m.text()).isEqualTo("async");
                }
            }
            InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", listener.localAddress().getPort() + 1);
            CompletableFuture<Endpoint> refused = Endpoint.connectAsync(cm, nobody, EndpointOptions.defaults());
            assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(RdmaException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
            assertThat(cm.idCount()).as("the failed attempt left no id").isEqualTo(1);
        }
    }

    @Test
    void acceptAsyncCompletesWhenAClientConnectsAndFailsWhenTheListenerCloses() throws Exception {
        try (RdmaCm cm = RdmaCm.open("loop0")) {
            EndpointListener listener = EndpointListener.listen(cm, ANY_PORT);
            CompletableFuture<Endpoint> next = listener.acceptAsync();
            try (Endpoint client = Endpoint.connect(cm, listener.localAddress());
                    Endpoint server = next.get(10, TimeUnit.SECONDS)) {
                assertThat(server.isOpen()).isTrue();
                CompletableFuture<Endpoint> never = listener.acceptAsync();
                listener.close();
                assertThatThrownBy(() -> never.get(10, TimeUnit.SECONDS)).cause()
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
                // The accepted endpoint outlives its listener, as an accepted socket does.
                client.send(bytes("still here"));
                try (Message m = server.receive(WAIT)) {
                    assertThat(m.text()).isEqualTo("still here");
                }
            }
        }
    }

    @Test
    void writeAndReadMoveDataBetweenRegisteredMemory() throws Exception {
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT);
                Endpoint client = Endpoint.connect(cm, listener.localAddress());
                Endpoint server = listener.accept(WAIT);
                Arena arena = Arena.ofShared()) {
            MemorySegment remote = arena.allocate(256);
            MemoryRegion target = server.register(remote, Access.LOCAL_WRITE | Access.REMOTE_WRITE
                    | Access.REMOTE_READ);
            MemorySegment local = arena.allocate(256);
            local.asSlice(0, 5).copyFrom(MemorySegment.ofArray(bytes("hello")));
            MemoryRegion source = client.register(local, Access.LOCAL_WRITE);
            client.write(source, 0, 5, target.address() + 100, target.rkey()).get(10, TimeUnit.SECONDS);
            assertThat(remote.asSlice(100, 5).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes("hello"));
            client.read(source, 200, 5, target.address() + 100, target.rkey()).get(10, TimeUnit.SECONDS);
            assertThat(local.asSlice(200, 5).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes("hello"));
            CompletableFuture<Void> bad = client.write(source, 0, 5, target.address(), target.rkey() ^ 0x80);
            assertThatThrownBy(() -> bad.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(RdmaException.class)
                    .hasMessageContaining("REM_ACCESS_ERR");
        }
    }

    @Test
    void endpointsOfAPolledGroupShareItsQueueAndMoveOnlyWhenPolled() {
        try (RdmaCm cm = RdmaCm.open("loop0"); CompletionGroup group = CompletionGroup.polled()) {
            EndpointOptions shared = EndpointOptions.defaults().withCompletions(group);
            EndpointListener listener = EndpointListener.listen(cm, ANY_PORT, shared);
            Endpoint c1 = Endpoint.connect(cm, listener.localAddress(), shared);
            Endpoint c2 = Endpoint.connect(cm, listener.localAddress(), shared);
            Endpoint s1 = listener.accept(WAIT);
            Endpoint s2 = listener.accept(WAIT);
            assertThat(group.endpointCount()).isEqualTo(4);
            c1.send(bytes("to one"));
            c2.send(bytes("to two"));
            // receive drives the group: the same poll delivers the other endpoint's message to its queue
            try (Message a = s1.receive(WAIT); Message b = s2.receive(WAIT)) {
                assertThat(List.of(a.text(), b.text())).containsExactlyInAnyOrder("to one", "to two");
            }
            assertThatThrownBy(() -> CompletionGroup.threaded().poll()).isInstanceOf(IllegalStateException.class);
            s1.close();
            assertThat(group.endpointCount()).as("an endpoint closed on its own leaves the group").isEqualTo(3);
            group.close();
            assertThat(c1.isOpen()).as("closing the group closed its endpoints").isFalse();
            assertThatThrownBy(() -> c2.send(bytes("x"))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            listener.close();
        }
    }

    @Test
    void closingTheConnectionManagerFirstClosesEverythingBuiltOnIt() {
        RdmaCm cm = RdmaCm.open("loop0");
        CompletionGroup group = CompletionGroup.threaded();
        EndpointListener listener = EndpointListener.listen(cm, ANY_PORT);
        Endpoint client = Endpoint.connect(cm, listener.localAddress(),
                EndpointOptions.defaults().withCompletions(group));
        Endpoint server = listener.accept(WAIT);
        Endpoint unaccepted = Endpoint.connect(cm, listener.localAddress());
        cm.close();
        assertThat(cm.idCount()).isZero();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        assertThat(unaccepted.isOpen()).isFalse();
        assertThat(group.endpointCount()).isZero();
        assertThatThrownBy(() -> client.send(bytes("x"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> listener.accept(WAIT)).isInstanceOf(IllegalStateException.class);
        // and every later close, in any order, is quiet
        server.close();
        listener.close();
        client.close();
        unaccepted.close();
        group.close();
        cm.close();
    }

    @Test
    void tryWithResourcesInEveryDeclarationOrderLeavesNothingOpen() {
        for (int order = 0; order < 4; order++) {
            RdmaCm cm = RdmaCm.open("loop0");
            EndpointListener listener = EndpointListener.listen(cm, ANY_PORT);
            Endpoint client = Endpoint.connect(cm, listener.localAddress());
            Endpoint server = listener.accept(WAIT);
            AutoCloseable[] all = switch (order) {
                case 0 -> new AutoCloseable[] {server, client, listener, cm};
                case 1 -> new AutoCloseable[] {cm, listener, client, server};
                case 2 -> new AutoCloseable[] {listener, server, cm, client};
                default -> new AutoCloseable[] {client, cm, server, listener};
            };
            for (AutoCloseable c : all) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError("order " + order + ": closing " + c + " threw", e);
                }
            }
            assertThat(cm.idCount()).as("order %d", order).isZero();
            assertThat(server.isOpen() || client.isOpen()).isFalse();
        }
    }

    @Test
    void aHandlerMayCloseItsOwnEndpoint() throws Exception {
        CompletableFuture<Endpoint> closedBy = new CompletableFuture<>();
        MessageHandler closer = (ep, m) -> {
            ep.close();
            closedBy.complete(ep);
        };
        try (RdmaCm cm = RdmaCm.open("loop0");
                EndpointListener listener = EndpointListener.listen(cm, ANY_PORT,
                        EndpointOptions.defaults().withHandler(closer));
                Endpoint client = Endpoint.connect(cm, listener.localAddress())) {
            Endpoint server = listener.accept(WAIT);
            client.send(bytes("bye"));
            assertThat(closedBy.get(10, TimeUnit.SECONDS)).isSameAs(server);
            assertThat(server.isOpen()).isFalse();
            assertThatThrownBy(() -> client.receive(WAIT)).isInstanceOf(RdmaException.class);
        }
    }
}
