package io.jrdma.siw.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.transport.RawPeer;
import io.jrdma.siw.transport.Testbed;
import io.jrdma.siw.transport.Upcalls;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.CmVerbsFixture;
import io.jrdma.testkit.EndpointPair;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.QpOptions;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The limits of a siw device (issue 6, item 5), each reached on purpose with the error it must give:
 * QPs, memory regions, direct memory, CQ depth, send WRs, SGEs, inline data, connections per listener
 * (the rdma_listen backlog: {@link io.jrdma.siw.transport.ListenBacklogIT}, which needs siw's default MPA
 * timeouts) and the MPA handshake timeouts. Runs in failsafe's {@code limits} execution:
 * {@code jrdma.siw.maxQp=16}, {@code jrdma.siw.maxMr=64}, MPA timeouts of 500 ms, 64 MiB of direct memory.
 */
class LimitsIT {
    private static final int MAX_QP = 16;
    private static final int MAX_MR = 64;
    private static final Duration MPA_TIMEOUT = Duration.ofMillis(500);

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Context ctx = Rdma.device("siw0").open();
    private final ProtectionDomain pd = ctx.allocPd();
    private final CompletionQueue cq = ctx.createCq(64);
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear(); // a closed QP still holds its buffers until nothing refers to it
        cq.close();
        pd.close();
        ctx.close();
        arena.close();
    }

    private QueuePair qp(QpCap cap) {
        QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cap));
        open.add(qp);
        return qp;
    }

    @Test
    void theConfiguredLimitsAreWhatTheDeviceReports() {
        DeviceAttributes da = ctx.queryDevice();
        assertThat(da.maxQp()).isEqualTo(MAX_QP);
        assertThat(da.maxMr()).isEqualTo(MAX_MR);
        assertThat(da.maxSge()).isEqualTo(6);
        assertThat(da.maxInlineData()).isEqualTo(SiwDevice.MAX_INLINE);
    }

    @Test
    void aQpBeyondMaxQpIsEnomemNamingTheLimitAndFreesItsSlotOnDestroy() throws Exception {
        List<QueuePair> qps = new ArrayList<>();
        for (int i = 0; i < MAX_QP; i++) {
            qps.add(qp(QpCap.of(4, 4)));
        }
        assertThatThrownBy(() -> qp(QpCap.of(4, 4))).isInstanceOf(RdmaException.class)
                .hasMessageContaining("limit of " + MAX_QP).extracting(e -> ((RdmaException) e).errno())
                .isEqualTo(Errno.ENOMEM);
        QueuePair last = qps.removeLast();
        last.close();
        open.remove(last);
        assertThat(qp(QpCap.of(4, 4))).as("a destroyed QP's slot is free again").isNotNull();
    }

    @Test
    void aRegionBeyondMaxMrIsEnomemNamingTheLimit() throws Exception {
        MemorySegment s = arena.allocate(4096);
        for (int i = 0; i < MAX_MR; i++) {
            open.add(pd.registerMemory(s, Access.LOCAL_WRITE));
        }
        assertThatThrownBy(() -> pd.registerMemory(s, Access.LOCAL_WRITE)).isInstanceOf(RdmaException.class)
                .hasMessageContaining("limit of " + MAX_MR).extracting(e -> ((RdmaException) e).errno())
                .isEqualTo(Errno.ENOMEM);
        MemoryRegion last = (MemoryRegion) open.removeLast();
        last.close();
        open.add(pd.registerMemory(s, Access.LOCAL_WRITE));
    }

    @Test
    void runningOutOfDirectMemoryForAQpIsEnomemAndNeverAnOutOfMemoryError() {
        List<ByteBuffer> filler = new ArrayList<>();
        for (int chunk : new int[] {1 << 20, 1 << 14}) {
            try {
                while (filler.size() < 100_000) {
                    filler.add(ByteBuffer.allocateDirect(chunk));
                }
            } catch (OutOfMemoryError full) {
                // direct memory is exhausted down to less than one chunk
            }
        }
        try {
            QueuePair q = qp(QpCap.of(4, 4));
            // A transport that keeps no per-QP direct buffers (engine-owned staging) may still succeed.
            assertThat(q.qpNum()).isPositive();
            System.out.println("LIMIT direct memory exhausted: a QP was still created (no per-QP direct buffers)");
        } catch (RdmaException e) {
            assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
            assertThat(e.getMessage()).contains("direct memory");
            System.out.println("LIMIT direct memory exhausted: " + e.getMessage());
        }
        filler.clear();
        Await.until("direct memory freed", Duration.ofSeconds(10), () -> {
            System.gc();
            try {
                qp(QpCap.of(4, 4));
                return true;
            } catch (RdmaException e) {
                return false;
            }
        });
    }

    @Test
    void aCqBeyondMaxCqeIsRefusedAndAnOverflowingCqRaisesCqErr() throws Exception {
        DeviceAttributes da = ctx.queryDevice();
        assertThatThrownBy(() -> ctx.createCq(da.maxCqe() + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ctx.createCq(0)).isInstanceOf(IllegalArgumentException.class);
        try (CmVerbsFixture f = fixture(); EndpointPair p = f.connect(QpOptions.rc().withCqDepth(2)
                .withCap(new QpCap(16, 4, 1, 1, 0)))) {
            int capacity = 16;
            MemorySegment buf = arena.allocate(4096);
            MemoryRegion src = p.a().onClose(p.a().pd().registerMemory(buf, Access.LOCAL_WRITE));
            MemoryRegion dst = p.b().onClose(p.b().pd().registerMemory(arena.allocate(4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE));
            for (int i = 0; i < capacity; i++) {
                p.a().qp().postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .sg(src, 0, 8).rdma(dst.address(), dst.rkey()));
            }
            assertThat(Await.event(p.a().context(), AsyncEventType.CQ_ERR)).as("CQ overflow").isNotNull();
        }
    }

    @Test
    void sendWrsBeyondTheQueueDepthAreRefusedByTheReturnValueAndBeyondMaxQpWrAtCreation() throws Exception {
        DeviceAttributes da = ctx.queryDevice();
        assertThatThrownBy(() -> qp(new QpCap(da.maxQpWr() + 1, 4, 1, 1, 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_qp_wr");
        // A raw responder that never answers READs: with ORD 1 none of them completes, so the send queue of
        // 4 fills and the fifth post finds no slot (ibv_post_send's ENOMEM, here the count posted).
        try (Testbed tb = new Testbed(); ServerSocket server = RawPeer.listen()) {
            QpImpl q = (QpImpl) tb.pd.createQp(QpInitAttr.rc(tb.cq, new QpCap(4, 4, 1, 1, 0)));
            tb.closeLater(q);
            q.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(Access.REMOTE_READ));
            Upcalls up = new Upcalls();
            tb.connect(tb.cm(SiwConfig.defaults()), q, server, Testbed.param(1, 1), up);
            RawPeer peer = tb.closeLater(RawPeer.accept(server));
            peer.readMpaBytes();
            peer.sendMpa(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
            assertThat(up.next("connectReply").status()).isZero();
            Testbed.Buffer sink = tb.buffer(4096, Testbed.ALL);
            int posted = 0;
            for (int i = 0; i < 5; i++) {
                posted += q.postSend(Testbed.read(i, sink, 0, 8, 0x1234, 0x1000 + i));
            }
            assertThat(posted).isEqualTo(4);
            assertThat(q.sendQueueDepth()).isEqualTo(4);
        }
    }

    @Test
    void moreSgesThanTheQpOrDeviceAllowsAreRefused() throws Exception {
        assertThatThrownBy(() -> qp(new QpCap(4, 4, 7, 1, 0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max_sge");
        try (CmVerbsFixture f = fixture(); EndpointPair p = f.connect(QpOptions.rc()
                .withCap(new QpCap(4, 4, 2, 1, 0)))) {
            MemoryRegion m = p.a().onClose(p.a().pd().registerMemory(arena.allocate(4096), Access.LOCAL_WRITE));
            assertThatThrownBy(() -> p.a().qp().postSend(sges(new SendWr().opcode(WrOpcode.SEND), m, 3)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_send_sge");
            assertThatThrownBy(() -> p.a().qp().postSend(sges(new SendWr().opcode(WrOpcode.RDMA_READ), m, 2)
                    .rdma(0x1000, 1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max_sge_rd");
        }
    }

    @Test
    void inlineDataBeyondTheLimitIsRefused() throws Exception {
        assertThatThrownBy(() -> qp(new QpCap(4, 4, 1, 1, SiwDevice.MAX_INLINE + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("inline");
        try (CmVerbsFixture f = fixture(); EndpointPair p = f.connect(QpOptions.rc()
                .withCap(new QpCap(4, 4, 1, 1, SiwDevice.MAX_INLINE)))) {
            MemoryRegion m = p.a().onClose(p.a().pd().registerMemory(arena.allocate(4096), Access.LOCAL_WRITE));
            assertThatThrownBy(() -> p.a().qp().postSend(new SendWr().opcode(WrOpcode.SEND).flags(SendFlags.INLINE)
                    .sg(m, 0, SiwDevice.MAX_INLINE + 1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("inline");
        }
    }

    @Test
    void anMpaHandshakeThatDoesNotFinishEndsAtTheConfiguredTimeout() throws Exception {
        assertThat(SiwConfig.fromSystemProperties().initiatorTimeout()).isEqualTo(MPA_TIMEOUT);
        assertThatThrownBy(() -> SiwConfig.defaults().withTimeouts(Duration.ZERO, MPA_TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeouts");
        try (ServerSocket silent = RawPeer.listen(); RdmaCm cm = RdmaCm.open("siw0")) {
            EventChannel ch = cm.createEventChannel();
            CmId c = ch.createId(null, PortSpace.TCP);
            c.resolveAddr(null, (InetSocketAddress) silent.getLocalSocketAddress(), Duration.ofSeconds(2));
            assertThat(next(ch).type()).isEqualTo(CmEventType.ADDR_RESOLVED);
            c.resolveRoute(Duration.ofSeconds(2));
            assertThat(next(ch).type()).isEqualTo(CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = c.verbs().allocPd();
            c.createQp(cpd, QpInitAttr.rc(c.verbs().createCq(8), QpCap.of(4, 4)));
            long t0 = System.nanoTime();
            c.connect(ConnParam.defaults());
            try (Socket accepted = silent.accept()) {
                CmEvent e = next(ch);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(e.type()).as("siw: no MPA reply within the initiator timeout").isEqualTo(
                        CmEventType.UNREACHABLE);
                assertThat(e.status()).isEqualTo(Errno.ETIMEDOUT.status());
                assertThat(ms).isBetween(400L, 5_000L);
                assertThat(accepted.getInputStream().readAllBytes()).as("the MPA request, then a FIN")
                        .hasSizeGreaterThanOrEqualTo(20);
            }
            c.destroyQp();
            c.destroy();
            ch.close();
        }
    }

    /** {@code w} with {@code n} SGEs of 8 bytes each in {@code m}. */
    private static SendWr sges(SendWr w, MemoryRegion m, int n) {
        w.numSge(n);
        for (int i = 0; i < n; i++) {
            w.sge(i).set(m, 8L * i, 8);
        }
        return w;
    }

    private static CmEvent next(EventChannel ch) throws InterruptedException {
        CmEvent e = ch.getEvent(Duration.ofSeconds(10));
        assertThat(e).as("a CM event within 10 s").isNotNull();
        ch.ackEvent(e);
        return e;
    }

    private static CmVerbsFixture fixture() {
        return new CmVerbsFixture("siw0", Features.iwarp(SiwDevice.MAX_INLINE), "127.0.0.1");
    }
}
