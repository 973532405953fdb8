package io.jrdma.rxe.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.rxe.RxeDevice;
import io.jrdma.testkit.CmVerbsFixture;
import io.jrdma.testkit.EndpointPair;
import io.jrdma.testkit.Features;
import io.jrdma.testkit.Hygiene;
import io.jrdma.testkit.QpOptions;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
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
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The limits of an rxe device (issue 6, item 5) that the shared verbs conformance suite does not reach on
 * rxe, each with the error it must give: QPs and memory regions (lowered with {@code jrdma.rxe.maxQp=16}
 * and {@code jrdma.rxe.maxMr=64}), the port's {@code max_msg_sz} (8 MiB, rxe's {@code
 * RXE_PORT_MAX_MSG_SZ}), and an IB CM handshake with a peer that never answers (the REQ and its {@code
 * max_cm_retries} retransmissions at the configured CM response timeout, then UNREACHABLE -ETIMEDOUT).
 * CQ depth and overflow (CQ_ERR), send and receive queue depth, SGEs and inline size run on rxe in the
 * conformance suite ({@code RxeVerbsConformanceTest}: {@code ResourceLimitChecks}, {@code PostingChecks},
 * {@code CompletionQueueChecks}); the listen backlog in {@code RxeCmIT.requestsBeyondTheBacklogAreRejectedAndCounted}.
 * Runs in failsafe's {@code limits} execution ({@code jrdma.cm.responseTimeout=12}).
 */
class RoceLimitsIT {
    private static final int MAX_QP = 16;
    private static final int MAX_MR = 64;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Context ctx = Rdma.device("rxe0").open();
    private final ProtectionDomain pd = ctx.allocPd();
    private final CompletionQueue cq = ctx.createCq(64);
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
        cq.close();
        pd.close();
        ctx.close();
        arena.close();
    }

    private QueuePair qp() {
        QueuePair qp = pd.createQp(QpInitAttr.rc(cq, QpCap.of(4, 4)));
        open.add(qp);
        return qp;
    }

    @Test
    void theConfiguredLimitsAreWhatTheDeviceReports() {
        DeviceAttributes da = ctx.queryDevice();
        assertThat(da.maxQp()).isEqualTo(MAX_QP);
        assertThat(da.maxMr()).isEqualTo(MAX_MR);
        assertThat(ctx.queryPort(1).maxMsgSize()).isEqualTo(RxeDevice.MAX_MSG_SIZE);
    }

    @Test
    void aQpBeyondMaxQpIsEnomemNamingTheLimitAndFreesItsSlotOnDestroy() throws Exception {
        List<QueuePair> qps = new ArrayList<>();
        for (int i = 0; i < MAX_QP; i++) {
            qps.add(qp());
        }
        assertThatThrownBy(this::qp).isInstanceOf(RdmaException.class).hasMessageContaining("limit of " + MAX_QP)
                .extracting(e -> ((RdmaException) e).errno()).isEqualTo(Errno.ENOMEM);
        QueuePair last = qps.removeLast();
        last.close();
        open.remove(last);
        assertThat(qp()).as("a destroyed QP's slot is free again").isNotNull();
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
        ((MemoryRegion) open.removeLast()).close();
        open.add(pd.registerMemory(s, Access.LOCAL_WRITE));
    }

    @Test
    void aMessageAboveMaxMsgSzIsRefusedAtThePostAndTheQpKeepsServing() throws Exception {
        try (CmVerbsFixture f = new CmVerbsFixture("rxe0", Features.ibTransport(RxeDevice.MAX_INLINE),
                "127.0.0.1"); EndpointPair p = f.connect(QpOptions.rc().withCap(new QpCap(4, 4, 2, 1, 0)))) {
            int max = Math.toIntExact(RxeDevice.MAX_MSG_SIZE);
            MemoryRegion src = p.a().onClose(p.a().pd().registerMemory(arena.allocate(max + 4096, 4096),
                    Access.LOCAL_WRITE));
            MemoryRegion dst = p.b().onClose(p.b().pd().registerMemory(arena.allocate(4096, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE));
            SendWr oneSge = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .sg(src, 0, max + 1).rdma(dst.address(), dst.rkey());
            assertThatThrownBy(() -> p.a().qp().postSend(oneSge)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max_msg_sz").hasMessageContaining(Integer.toString(max + 1));
            SendWr twoSges = new SendWr().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).numSge(2);
            twoSges.sge(0).set(src, 0, max / 2);
            twoSges.sge(1).set(src, max / 2, max / 2 + 1);
            assertThatThrownBy(() -> p.a().qp().postSend(twoSges)).as("the sum of the SGEs counts")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_msg_sz");
            assertThat(p.a().qp().state()).as("a refused post changes nothing").isEqualTo(QpState.RTS);
            assertThat(p.a().qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE)
                    .flags(SendFlags.SIGNALED).sg(src, 0, 4096).rdma(dst.address(), dst.rkey()))).isEqualTo(1);
            io.jrdma.verbs.WorkCompletion wc = new io.jrdma.verbs.WorkCompletion();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (p.a().cq().poll(new io.jrdma.verbs.WorkCompletion[] {wc}, 0, 1) == 0
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(wc.wrId()).isEqualTo(3);
            assertThat(wc.status()).isEqualTo(io.jrdma.verbs.WcStatus.SUCCESS);
        }
    }

    @Test
    void aReqToAPeerThatNeverAnswersIsUnreachableAfterTheCmRetriesAtTheConfiguredTimeout() throws Exception {
        int plt = Integer.getInteger("jrdma.rxe.packetLifeTime", 18);
        long each = 2 * IbCm.toMs(plt) + IbCm.toMs(IbCm.CM_RESPONSE_TIMEOUT);
        long expected = each * (IbCm.MAX_CM_RETRIES + 1);
        assertThat(IbCm.CM_RESPONSE_TIMEOUT).as("jrdma.cm.responseTimeout of the limits execution").isEqualTo(12);
        InetAddress silentHost = InetAddress.getByAddress(new byte[] {127, 0, 0, 4});
        try (DatagramSocket silent = new DatagramSocket(new InetSocketAddress(silentHost, 4791));
                RdmaCm cm = RdmaCm.open("rxe0")) {
            silent.setSoTimeout(50);
            EventChannel ch = cm.createEventChannel();
            CmId c = ch.createId(null, PortSpace.TCP);
            c.resolveAddr(null, new InetSocketAddress(silentHost, 7471), Duration.ofSeconds(2));
            assertThat(next(ch, Duration.ofSeconds(10)).type()).isEqualTo(CmEventType.ADDR_RESOLVED);
            c.resolveRoute(Duration.ofSeconds(2));
            assertThat(next(ch, Duration.ofSeconds(10)).type()).isEqualTo(CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = c.verbs().allocPd();
            CompletionQueue ccq = c.verbs().createCq(8);
            c.createQp(cpd, QpInitAttr.rc(ccq, QpCap.of(4, 4)));
            long t0 = System.nanoTime();
            c.connect(ConnParam.defaults());
            int reqs = 0;
            CmEvent e = null;
            long deadline = t0 + Duration.ofMillis(expected).plusSeconds(5).toNanos();
            while (e == null && System.nanoTime() < deadline) {
                try {
                    silent.receive(new DatagramPacket(new byte[512], 512));
                    reqs++;
                } catch (SocketTimeoutException quiet) {
                    e = ch.getEvent(Duration.ZERO);
                }
            }
            assertThat(e).as("a CM event within the retries + 5 s").isNotNull();
            ch.ackEvent(e);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("LIMIT rxe CM handshake to a silent peer: " + e.type() + " status " + e.status()
                    + " after " + ms + " ms, " + reqs + " REQs (expected " + expected + " ms)");
            assertThat(e.type()).isEqualTo(CmEventType.UNREACHABLE);
            assertThat(e.status()).isEqualTo(Errno.ETIMEDOUT.status());
            assertThat(reqs).as("the REQ and its CMA_MAX_CM_RETRIES retransmissions")
                    .isEqualTo(IbCm.MAX_CM_RETRIES + 1);
            assertThat(ms).isBetween(expected * 9 / 10, expected + 5_000);
            assertThat(c.qp().state()).as("the QP of a failed connect").isEqualTo(QpState.ERR);
            c.destroyQp();
            c.destroy();
            ccq.close();
            cpd.close();
            ch.close();
        }
    }

    private static CmEvent next(EventChannel ch, Duration timeout) throws InterruptedException {
        CmEvent e = ch.getEvent(timeout);
        assertThat(e).as("a CM event within " + timeout).isNotNull();
        ch.ackEvent(e);
        return e;
    }
}
