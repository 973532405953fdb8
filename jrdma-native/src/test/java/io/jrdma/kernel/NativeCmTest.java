package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kernel's connection manager through librdmacm ({@link NativeCm}) on a kernel iWARP device
 * (native:siw0 in the interop rig, on the address {@code -Dnative.cm.address}, 10.0.2.15 by default):
 * two threads of one process connect, accept and disconnect RC QPs of jrdma-native's contexts, the
 * private data of the request and of the reply arrive, a SEND lands in the peer's RECV and an RDMA WRITE
 * to the region the request advertised lands in it; a rejected request reaches the initiator as REJECTED
 * with the reject's private data.
 */
class NativeCmTest {
    private static final long WAIT_MS = 10_000;
    private static final int LEN = 4096;
    private static Device device;
    private static InetAddress address;

    /** Skips (each test, so that the reason is reported) without a kernel iWARP device and librdmacm. */
    @BeforeEach
    void device() throws Exception {
        device = Rdma.devices().stream().filter(x -> x.provider().equals(NativeProvider.NAME)
                && x.transport() == TransportType.IWARP).findFirst().orElse(null);
        Assumptions.assumeTrue(device != null, () -> "no kernel iWARP device: "
                + Rdma.unavailableProviders().getOrDefault(NativeProvider.NAME, "only IB-transport devices"));
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        address = InetAddress.getByName(System.getProperty("native.cm.address", "10.0.2.15"));
    }

    /** A QP with its context, PD, CQ and a registered region of {@link #LEN} bytes. */
    private static final class Side implements AutoCloseable {
        final Context ctx = device.open();
        final ProtectionDomain pd = ctx.allocPd();
        final CompletionQueue cq = ctx.createCq(16);
        final NativeQp qp = (NativeQp) pd.createQp(QpInitAttr.rc(cq, new QpCap(8, 8, 1, 1, 0)));
        final MemorySegment buf = Arena.ofAuto().allocate(LEN, 64);
        final MemoryRegion mr = pd.registerMemory(buf, Access.ALL);
        final WorkCompletion wc = new WorkCompletion();

        WorkCompletion await() {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            WorkCompletion[] one = {wc};
            while (cq.poll(one, 0, 1) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no completion within " + WAIT_MS + " ms on " + qp);
                }
                Thread.onSpinWait();
            }
            assertThat(wc.status()).as("%s", wc).isEqualTo(WcStatus.SUCCESS);
            return wc;
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void connectSendWriteAndDisconnect() throws Exception {
        NativeCm cm = NativeCm.get();
        int port = 20000 + (int) (ProcessHandle.current().pid() % 20000);
        try (NativeCm.Id listener = cm.createId(); Side server = new Side(); Side client = new Side()) {
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            // the client advertises its region (address, rkey) in the request's private data
            byte[] request = new byte[12 + 5];
            MemorySegment req = MemorySegment.ofArray(request);
            req.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, client.mr.address());
            req.set(ValueLayout.JAVA_INT_UNALIGNED, 8, client.mr.rkey());
            System.arraycopy(ascii("hello"), 0, request, 12, 5);
            CompletableFuture<NativeCm.Id> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    NativeCm.Event e = listener.expect(NativeCm.CONNECT_REQUEST, WAIT_MS);
                    assertThat(e.privateData()).startsWith(request);
                    NativeCm.Id child = e.newId();
                    assertThat(child.deviceName()).isEqualTo(device.name());
                    server.qp.postRecv(new RecvWr().wrId(7).sg(server.mr, 0, LEN));
                    child.accept(server.qp, ascii("welcome"), 1, 1);
                    child.expect(NativeCm.ESTABLISHED, WAIT_MS);
                    return child;
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            try (NativeCm.Id id = cm.createId()) {
                id.resolveAddr(null, new InetSocketAddress(address, port), 2000);
                id.expect(NativeCm.ADDR_RESOLVED, WAIT_MS);
                id.resolveRoute(2000);
                id.expect(NativeCm.ROUTE_RESOLVED, WAIT_MS);
                assertThat(id.deviceName()).isEqualTo(device.name());
                client.qp.postRecv(new RecvWr().wrId(8).sg(client.mr, 0, 64));
                id.connect(client.qp, request, 1, 1);
                NativeCm.Event up = id.expect(NativeCm.ESTABLISHED, WAIT_MS);
                assertThat(up.privateData()).startsWith(ascii("welcome"));
                // no state check: Linux siw's query_qp leaves qp_state out (ibv_query_qp says RESET); the
                // traffic below is what shows both QPs in RTS
                assertThat(id.peerAddress()).isEqualTo(new InetSocketAddress(address, port));
                try (NativeCm.Id child = accepted.get(WAIT_MS, TimeUnit.MILLISECONDS)) {
                    // SEND client -> server
                    client.buf.asSlice(1024, 100).fill((byte) 0x5a);
                    client.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .sg(client.mr, 1024, 100));
                    assertThat(client.await().opcode()).isEqualTo(WcOpcode.SEND);
                    WorkCompletion got = server.await();
                    assertThat(got.opcode()).isEqualTo(WcOpcode.RECV);
                    assertThat(got.byteLen()).isEqualTo(100);
                    assertThat(server.buf.asSlice(0, 100).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x5a);
                    // RDMA WRITE server -> the region the request advertised, then a SEND to say it is there
                    long raddr = req.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                    server.buf.asSlice(2048, 512).fill((byte) 0x3c);
                    server.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                            .sg(server.mr, 2048, 512).rdma(raddr + 2048, req.get(ValueLayout.JAVA_INT_UNALIGNED,
                                    8)));
                    assertThat(server.await().opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
                    server.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .sg(server.mr, 2048, 8));
                    assertThat(server.await().opcode()).isEqualTo(WcOpcode.SEND);
                    assertThat(client.await().opcode()).isEqualTo(WcOpcode.RECV);
                    assertThat(client.buf.asSlice(2048, 512).toArray(ValueLayout.JAVA_BYTE))
                            .containsOnly((byte) 0x3c);
                    // disconnect from the client: both sides see DISCONNECTED
                    id.disconnect();
                    id.expect(NativeCm.DISCONNECTED, WAIT_MS);
                    child.expect(NativeCm.DISCONNECTED, WAIT_MS);
                }
            }
        }
    }

    @Test
    void rejectCarriesPrivateDataToTheInitiator() throws Exception {
        NativeCm cm = NativeCm.get();
        int port = 20001 + (int) (ProcessHandle.current().pid() % 20000);
        try (NativeCm.Id listener = cm.createId(); Side client = new Side()) {
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            try (NativeCm.Id id = cm.createId()) {
                id.resolveAddr(null, new InetSocketAddress(address, port), 2000);
                id.expect(NativeCm.ADDR_RESOLVED, WAIT_MS);
                id.resolveRoute(2000);
                id.expect(NativeCm.ROUTE_RESOLVED, WAIT_MS);
                id.connect(client.qp, ascii("let me in"), 1, 1);
                NativeCm.Event e = listener.expect(NativeCm.CONNECT_REQUEST, WAIT_MS);
                assertThat(e.privateData()).startsWith(ascii("let me in"));
                try (NativeCm.Id child = e.newId()) {
                    child.reject(ascii("go away"));
                }
                NativeCm.Event r = id.next(WAIT_MS);
                assertThat(r).as("the initiator's event").isNotNull();
                assertThat(r.type()).as("%s", r).isEqualTo(NativeCm.REJECTED);
                assertThat(r.privateData()).startsWith(ascii("go away"));
            }
        }
    }

    @Test
    void aQpOfAnotherDeviceOrAnUnboundIdIsRefused() {
        NativeCm cm = NativeCm.get();
        try (NativeCm.Id id = cm.createId(); Side s = new Side()) {
            assertThatThrownBy(() -> id.connect(s.qp, new byte[0], 1, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not bound");
            assertThatThrownBy(() -> id.reject(new byte[256])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("255");
        }
    }
}
