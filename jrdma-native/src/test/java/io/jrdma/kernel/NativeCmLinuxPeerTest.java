package io.jrdma.kernel;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.io.File;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * jrdma-native's connection manager against rdma-core's {@code ucmatose} on a kernel iWARP device
 * (native:siw0 in the interop rig, address {@code -Dnative.cm.address}, 10.0.2.15 by default): ucmatose
 * connects as a client to a jrdma-native listener; the listener accepts, sends 10 messages of 100 bytes,
 * receives ucmatose's 10 replies and disconnects, and ucmatose exits with status 0; and a jrdma-native client
 * connects to ucmatose's server, receives its 10 messages, replies with 10, sees the server's disconnect,
 * and ucmatose exits with status 0.
 */
class NativeCmLinuxPeerTest {
    private static final long WAIT_MS = 20_000;
    private static final int COUNT = 10;
    private static final int SIZE = 100;
    private static final int ATTEMPTS = 20;
    private static final long RETRY_MS = 250;

    @Test
    void ucmatoseClientAgainstANativeListener() throws Exception {
        Device device = Rdma.devices().stream().filter(x -> x.provider().equals(NativeProvider.NAME)
                && x.transport() == TransportType.IWARP).findFirst().orElse(null);
        Assumptions.assumeTrue(device != null, () -> "no kernel iWARP device: "
                + Rdma.unavailableProviders().getOrDefault(NativeProvider.NAME, "only IB-transport devices"));
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        Path ucmatose = Path.of("/usr/bin/ucmatose");
        Assumptions.assumeTrue(Files.isExecutable(ucmatose), "no " + ucmatose + " (rdma-core's rdmacm-utils)");
        InetAddress address = InetAddress.getByName(System.getProperty("native.cm.address", "10.0.2.15"));
        int port = 7471 + (int) (ProcessHandle.current().pid() % 1000);
        NativeCm cm = NativeCm.get();
        File log = File.createTempFile("ucmatose", ".txt");
        try (NativeCm.Id listener = cm.createId(); Context ctx = device.open()) {
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(64);
            NativeQp qp = (NativeQp) pd.createQp(QpInitAttr.rc(cq, new QpCap(COUNT + 2, COUNT + 2, 1, 1, 0)));
            MemoryRegion mr = pd.registerMemory(Arena.ofAuto().allocate(SIZE * (COUNT + 1), 64), Access.ALL);
            Process peer = new ProcessBuilder(ucmatose.toString(), "-s", address.getHostAddress(), "-p",
                    Integer.toString(port), "-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE))
                    .redirectErrorStream(true).redirectOutput(log).start();
            try {
                NativeCm.Event req = listener.expect(NativeCm.CONNECT_REQUEST, WAIT_MS);
                try (NativeCm.Id child = req.newId()) {
                    for (int i = 0; i < COUNT; i++) {
                        qp.postRecv(new RecvWr().wrId(100 + i).sg(mr, SIZE * (i + 1), SIZE));
                    }
                    child.accept(qp, new byte[0], 1, 1);
                    child.expect(NativeCm.ESTABLISHED, WAIT_MS);
                    for (int i = 0; i < COUNT; i++) {
                        qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                                .sg(mr, 0, SIZE));
                    }
                    int sends = 0;
                    int recvs = 0;
                    WorkCompletion[] wc = new WorkCompletion[8];
                    for (int i = 0; i < wc.length; i++) {
                        wc[i] = new WorkCompletion();
                    }
                    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                    while (sends < COUNT || recvs < COUNT) {
                        int n = cq.poll(wc, 0, wc.length);
                        for (int k = 0; k < n; k++) {
                            assertThat(wc[k].status()).as("%s", wc[k]).isEqualTo(WcStatus.SUCCESS);
                            if (wc[k].opcode() == WcOpcode.RECV) {
                                assertThat(wc[k].byteLen()).isEqualTo(SIZE);
                                recvs++;
                            } else {
                                sends++;
                            }
                        }
                        assertThat(System.nanoTime()).as("sends %d, receives %d of %d", sends, recvs, COUNT)
                                .isLessThan(deadline);
                    }
                    child.disconnect();
                    child.expect(NativeCm.DISCONNECTED, WAIT_MS);
                }
                assertThat(peer.waitFor(WAIT_MS, TimeUnit.MILLISECONDS)).as("ucmatose exited").isTrue();
                assertThat(peer.exitValue()).as("ucmatose: %s", Files.readString(log.toPath())).isZero();
                System.out.println("ucmatose: " + Files.readString(log.toPath()).replace('\n', '|'));
            } finally {
                peer.destroyForcibly();
                qp.close();
            }
        } finally {
            Files.deleteIfExists(log.toPath());
        }
    }

    @Test
    void nativeClientAgainstAUcmatoseServer() throws Exception {
        Device device = Rdma.devices().stream().filter(x -> x.provider().equals(NativeProvider.NAME)
                && x.transport() == TransportType.IWARP).findFirst().orElse(null);
        Assumptions.assumeTrue(device != null, () -> "no kernel iWARP device: "
                + Rdma.unavailableProviders().getOrDefault(NativeProvider.NAME, "only IB-transport devices"));
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        Path ucmatose = Path.of("/usr/bin/ucmatose");
        Assumptions.assumeTrue(Files.isExecutable(ucmatose), "no " + ucmatose + " (rdma-core's rdmacm-utils)");
        InetAddress address = InetAddress.getByName(System.getProperty("native.cm.address", "10.0.2.15"));
        int port = 8471 + (int) (ProcessHandle.current().pid() % 1000);
        NativeCm cm = NativeCm.get();
        File log = File.createTempFile("ucmatose", ".txt");
        Process peer = new ProcessBuilder(ucmatose.toString(), "-b", address.getHostAddress(), "-p",
                Integer.toString(port), "-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE))
                .redirectErrorStream(true).redirectOutput(log).start();
        try (Context ctx = device.open()) {
            ProtectionDomain pd = ctx.allocPd();
            MemoryRegion mr = pd.registerMemory(Arena.ofAuto().allocate(SIZE * (COUNT + 1), 64), Access.ALL);
            // the server listens some time after it starts: a refused attempt (no listener yet) is retried,
            // on a new id, QP and CQ (siw flushes the receives of the abandoned QP into its CQ), at most
            // ATTEMPTS times
            NativeCm.Id id = null;
            NativeQp qp = null;
            CompletionQueue cq = null;
            NativeCm.Event up = null;
            for (int attempt = 0; attempt < ATTEMPTS && up == null; attempt++) {
                id = cm.createId();
                cq = ctx.createCq(64);
                qp = (NativeQp) pd.createQp(QpInitAttr.rc(cq, new QpCap(COUNT + 2, COUNT + 2, 1, 1, 0)));
                id.resolveAddr(null, new InetSocketAddress(address, port), 2000);
                id.expect(NativeCm.ADDR_RESOLVED, WAIT_MS);
                id.resolveRoute(2000);
                id.expect(NativeCm.ROUTE_RESOLVED, WAIT_MS);
                for (int i = 0; i < COUNT; i++) {
                    qp.postRecv(new RecvWr().wrId(100 + i).sg(mr, SIZE * (i + 1), SIZE));
                }
                NativeCm.Event e;
                try {
                    id.connect(qp, new byte[0], 1, 1);
                    e = id.next(WAIT_MS);
                    assertThat(e).as("an answer to the connect").isNotNull();
                } catch (io.jrdma.verbs.RdmaException refused) {
                    // kernel siw connects its TCP stream inside rdma_connect: no listener yet fails it at once
                    assertThat(refused.errno()).isEqualTo(io.jrdma.verbs.Errno.ECONNREFUSED);
                    e = null;
                }
                if (e != null && e.type() == NativeCm.ESTABLISHED) {
                    up = e;
                } else {
                    id.close();
                    qp.close();
                    cq.close();
                    assertThat(peer.isAlive()).as("ucmatose: %s", Files.readString(log.toPath())).isTrue();
                    Thread.sleep(RETRY_MS); // a retry's back-off, bounded by ATTEMPTS
                }
            }
            assertThat(up).as("connected within %d attempts", ATTEMPTS).isNotNull();
            try (NativeCm.Id conn = id) {
                // ucmatose's server sends first, then waits for as many replies
                int recvs = 0;
                int sends = 0;
                WorkCompletion[] wc = new WorkCompletion[8];
                for (int i = 0; i < wc.length; i++) {
                    wc[i] = new WorkCompletion();
                }
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                boolean replied = false;
                while (recvs < COUNT || sends < COUNT) {
                    int n = cq.poll(wc, 0, wc.length);
                    for (int k = 0; k < n; k++) {
                        assertThat(wc[k].status()).as("%s", wc[k]).isEqualTo(WcStatus.SUCCESS);
                        if (wc[k].opcode() == WcOpcode.RECV) {
                            assertThat(wc[k].byteLen()).isEqualTo(SIZE);
                            recvs++;
                        } else {
                            sends++;
                        }
                    }
                    if (recvs == COUNT && !replied) {
                        for (int i = 0; i < COUNT; i++) {
                            qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                                    .sg(mr, 0, SIZE));
                        }
                        replied = true;
                    }
                    assertThat(System.nanoTime()).as("receives %d, sends %d of %d", recvs, sends, COUNT)
                            .isLessThan(deadline);
                }
                conn.expect(NativeCm.DISCONNECTED, WAIT_MS);
                conn.disconnect();
            }
            assertThat(peer.waitFor(WAIT_MS, TimeUnit.MILLISECONDS)).as("ucmatose exited").isTrue();
            assertThat(peer.exitValue()).as("ucmatose: %s", Files.readString(log.toPath())).isZero();
            System.out.println("ucmatose: " + Files.readString(log.toPath()).replace('\n', '|'));
        } finally {
            peer.destroyForcibly();
            Files.deleteIfExists(log.toPath());
        }
    }

    /**
     * rdma-core's {@code rping -c -V} against a jrdma-native server that speaks rping's protocol: per ping
     * the client advertises its start buffer (address, rkey, length, big-endian) in a SEND, the server
     * RDMA READs it and answers with a SEND, the client advertises its RDMA buffer, the server RDMA WRITEs
     * what it read into it and answers again; the client checks both buffers are equal, disconnects and
     * exits with status 0.
     */
    @Test
    void rpingClientAgainstANativeServer() throws Exception {
        Device device = Rdma.devices().stream().filter(x -> x.provider().equals(NativeProvider.NAME)
                && x.transport() == TransportType.IWARP).findFirst().orElse(null);
        Assumptions.assumeTrue(device != null, () -> "no kernel iWARP device: "
                + Rdma.unavailableProviders().getOrDefault(NativeProvider.NAME, "only IB-transport devices"));
        Assumptions.assumeTrue(Rdmacm.unavailable() == null, () -> "librdmacm: " + Rdmacm.unavailable());
        Path rping = Path.of("/usr/bin/rping");
        Assumptions.assumeTrue(Files.isExecutable(rping), "no " + rping + " (rdma-core's rdmacm-utils)");
        InetAddress address = InetAddress.getByName(System.getProperty("native.cm.address", "10.0.2.15"));
        int port = 9471 + (int) (ProcessHandle.current().pid() % 1000);
        int pings = 5;
        int size = 64;
        NativeCm cm = NativeCm.get();
        File log = File.createTempFile("rping", ".txt");
        try (NativeCm.Id listener = cm.createId(); Context ctx = device.open()) {
            listener.bind(new InetSocketAddress(address, port));
            listener.listen(4);
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue scq = ctx.createCq(16);
            CompletionQueue rcq = ctx.createCq(16);
            NativeQp qp = (NativeQp) pd.createQp(new QpInitAttr(io.jrdma.verbs.QpType.RC, scq, rcq, null,
                    new QpCap(8, 8, 1, 1, 0), false));
            java.lang.foreign.MemorySegment buf = Arena.ofAuto().allocate(8192, 64);
            MemoryRegion mr = pd.registerMemory(buf, Access.ALL);
            Process peer = new ProcessBuilder(rping.toString(), "-c", "-a", address.getHostAddress(), "-p",
                    Integer.toString(port), "-C", Integer.toString(pings), "-S", Integer.toString(size), "-V", "-v")
                    .redirectErrorStream(true).redirectOutput(log).start();
            try {
                NativeCm.Event req = listener.expect(NativeCm.CONNECT_REQUEST, WAIT_MS);
                try (NativeCm.Id child = req.newId()) {
                    qp.postRecv(new RecvWr().wrId(1).sg(mr, 0, 16));
                    child.accept(qp, new byte[0], 1, 1);
                    child.expect(NativeCm.ESTABLISHED, WAIT_MS);
                    WorkCompletion wc = new WorkCompletion();
                    java.lang.foreign.ValueLayout.OfLong be64 = java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED
                            .withOrder(java.nio.ByteOrder.BIG_ENDIAN);
                    java.lang.foreign.ValueLayout.OfInt be32 = java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED
                            .withOrder(java.nio.ByteOrder.BIG_ENDIAN);
                    for (int ping = 0; ping < pings; ping++) {
                        await(rcq, wc, WcOpcode.RECV);
                        long addr = buf.get(be64, 0);
                        int rkey = buf.get(be32, 8);
                        int len = buf.get(be32, 12);
                        assertThat(len).as("advertised length").isBetween(1, 4096);
                        qp.postRecv(new RecvWr().wrId(1).sg(mr, 0, 16));
                        qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                                .sg(mr, 4096, len).rdma(addr, rkey));
                        await(scq, wc, WcOpcode.RDMA_READ);
                        String text = new String(buf.asSlice(4096, len).toArray(java.lang.foreign.ValueLayout
                                .JAVA_BYTE), java.nio.charset.StandardCharsets.US_ASCII);
                        assertThat(text).startsWith("rdma-ping-" + ping + ": ");
                        qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                                .sg(mr, 64, 16));
                        await(scq, wc, WcOpcode.SEND);
                        await(rcq, wc, WcOpcode.RECV);
                        long waddr = buf.get(be64, 0);
                        int wkey = buf.get(be32, 8);
                        int wlen = Math.min(len, buf.get(be32, 12));
                        qp.postRecv(new RecvWr().wrId(1).sg(mr, 0, 16));
                        qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                                .sg(mr, 4096, wlen).rdma(waddr, wkey));
                        await(scq, wc, WcOpcode.RDMA_WRITE);
                        qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                                .sg(mr, 64, 16));
                        await(scq, wc, WcOpcode.SEND);
                    }
                    child.expect(NativeCm.DISCONNECTED, WAIT_MS);
                    child.disconnect();
                }
                assertThat(peer.waitFor(WAIT_MS, TimeUnit.MILLISECONDS)).as("rping exited").isTrue();
                assertThat(peer.exitValue()).as("rping: %s", Files.readString(log.toPath())).isZero();
                System.out.println("rping: " + Files.readString(log.toPath()).replace('\n', '|'));
            } finally {
                peer.destroyForcibly();
                qp.close();
            }
        } finally {
            Files.deleteIfExists(log.toPath());
        }
    }

    private static void await(CompletionQueue cq, WorkCompletion wc, WcOpcode opcode) {
        WorkCompletion[] one = {wc};
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (cq.poll(one, 0, 1) == 0) {
            assertThat(System.nanoTime()).as("a %s completion within %d ms", opcode, WAIT_MS).isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(wc.status()).as("%s", wc).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode()).as("%s", wc).isEqualTo(opcode);
    }
}
