package io.jrdma.tools.perftest;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.BwStats;
import io.jrdma.tools.perf.LatResult;
import io.jrdma.tools.perf.PeerAddress;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perf.PerftestFormat;
import io.jrdma.tools.perf.RunMonitor;
import io.jrdma.tools.perf.TestInfo;
import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.tools.rdma.CmWait;
import io.jrdma.tools.rdma.CqWaiter;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;

/**
 * One side of a perftest run in the rdma_cm mode: the sequence of connections, exchanges and
 * measurements of the tool's {@code main}, so that a Linux perftest peer started with {@code -R}
 * and the same flags sees what it expects.
 *
 * <p>Sequence (perftest v4.5-0.20 {@code src/*_bw.c} and {@code src/*_lat.c}): the control
 * connection ({@link CommLink}); versions, page and cache-line sizes, MTU; a handshake; the data
 * connections on the same port ({@code create_rdma_cm_connection}: the client resolves, connects
 * and waits for ESTABLISHED, the server accepts each request); a handshake; the settings banner;
 * the tool's handshakes of {@link PingpongDest}s; the measurement; the report exchange and the
 * closing handshake. A jrdma server keeps one listener for all connections, so a client's data
 * connections never race its setup; a jrdma client waits briefly before connecting the data QPs
 * to a Linux server (which listens again only after answering the handshake) and retries, as
 * perftest's {@code rdma_cm_client_connection} means to.
 */
final class PerfSession {

    /** perftest's default cache line ({@code DEF_CACHE_LINE_SIZE}). */
    static final int CACHE_LINE = 64;

    /** perftest's cycle buffer: the page size. */
    static final int PAGE_SIZE = 4096;

    /** The RNR NAK timer perftest's server sets on RC data QPs ({@code MIN_RNR_TIMER}). */
    static final int MIN_RNR_TIMER = 12;

    /** The Q_Key rdma_cm gives UD QPs ({@code RDMA_UDP_QKEY}). */
    static final int RDMA_UDP_QKEY = 0x01234567;

    /** Data connection attempts against a server that is not listening yet. */
    static final int CONNECT_ATTEMPTS = 10;

    /** Pause between attempts (perftest: 100 ms). */
    static final Duration CONNECT_RETRY_DELAY = Duration.ofMillis(100);

    /** Pause before the first data connection to a Linux server, which listens again only now. */
    static final Duration LINUX_SERVER_GRACE = Duration.ofMillis(250);

    /** How long a client waits for the DISCONNECTED events of its data connections. */
    static final Duration DISCONNECT_WAIT = Duration.ofSeconds(2);

    /** How long a server waits for its client to disconnect first. */
    static final Duration SERVER_LINGER = Duration.ofSeconds(1);

    /** Bytes after the version's NUL by which jrdma recognises a jrdma peer (perftest reads up to the NUL). */
    static final String JRDMA_MARK = "jrdma";

    private final PerfSpec spec;
    private final PerfTest test;
    private final boolean server;
    private final RdmaCm cm;
    private final Cleanup cleanup;
    private final PerfReporter reporter;
    private final PrintStream err;
    private final boolean progress;
    private final EventChannel listenCh;
    private final InetSocketAddress target;
    private final InetSocketAddress source;
    private final Duration acceptTimeout;

    private CommLink comm;
    private DataPath data;
    private CmId[] ids;
    private EventChannel dataCh;
    /** The device-dependent settings. */
    private LinkParams params;
    private int cycleBuffer = PAGE_SIZE;
    private int cacheLine = CACHE_LINE;
    private boolean peerIsJrdma;
    private Warmup warmup;
    private PingpongDest[] mine;
    private PingpongDest[] theirs;
    private final List<PerfResult> rows = new ArrayList<>();
    private Verification verification = Verification.notApplicable();

    private PerfSession(PerfSpec spec, boolean server, RdmaCm cm, Cleanup cleanup, PerfReporter reporter,
            PrintStream err, boolean progress, EventChannel listenCh, InetSocketAddress target,
            InetSocketAddress source, Duration acceptTimeout) {
        this.spec = spec;
        this.test = spec.test();
        this.server = server;
        this.cm = cm;
        this.cleanup = cleanup;
        this.reporter = reporter;
        this.err = err;
        this.progress = progress;
        this.listenCh = listenCh;
        this.target = target;
        this.source = source;
        this.acceptTimeout = acceptTimeout;
    }

    static PerfSession server(PerfSpec spec, RdmaCm cm, EventChannel listenCh, Cleanup cleanup,
            PerfReporter reporter, PrintStream err, boolean progress, Duration acceptTimeout) {
        return new PerfSession(spec, true, cm, cleanup, reporter, err, progress, listenCh, null, null, acceptTimeout);
    }

    static PerfSession client(PerfSpec spec, RdmaCm cm, Cleanup cleanup, InetSocketAddress target,
            InetSocketAddress source, PerfReporter reporter, PrintStream err, boolean progress) {
        return new PerfSession(spec, false, cm, cleanup, reporter, err, progress, null, target, source, null);
    }

    // ------------------------------------------------------------------ the run

    /**
     * Whether the control connection is up (after which a failure is never retried).
     *
     * @return true once connected
     */
    boolean controlConnected() {
        return comm != null;
    }

    PerfRun run() {
        if (server) {
            reporter.line(PerftestFormat.WAITING_FOR_CLIENT);
            CmEvent req = awaitRequest(acceptTimeout, "a client");
            comm = CommLink.accept(cm, req, spec.timeout(), cleanup);
        } else {
            comm = CommLink.connect(cm, target, source, spec.timeout(), cleanup);
        }
        exchangeVersions();
        int[] sys = comm.exchangeSysData(PAGE_SIZE, CACHE_LINE);
        cycleBuffer = sys[0];
        cacheLine = sys[1];
        params = LinkParams.resolve(spec, comm, reporter, err);
        warmup = new Warmup(spec, err, peerIsJrdma, () -> data.stall());
        // create_rdma_cm_connection: handshake, data connections, handshake.
        comm.handshake(PingpongDest.ZERO, params.gidIndex, spec.timeout());
        if (server) {
            acceptData();
        } else {
            connectData();
        }
        if (spec.verify()) {
            data.prepareVerification(spec.sizes().get(0));
        }
        comm.handshake(PingpongDest.ZERO, params.gidIndex, spec.timeout());
        setUpConnection();
        switch (test) {
            case WRITE_BW, READ_BW, ATOMIC_BW -> rdmaBw();
            case SEND_BW -> sendBw();
            case WRITE_LAT -> writeLat();
            case READ_LAT -> readLat();
            case SEND_LAT -> sendLat();
            default -> throw new IllegalStateException(test.toString());
        }
        int qpTimeout = -1;
        int trafficClass = -1;
        if (spec.connection() == QpType.RC) {
            QpAttr a = data.qp(0).query();
            qpTimeout = a.timeout();
            trafficClass = a.ahAttr() == null ? -1 : a.ahAttr().trafficClass();
        }
        teardown();
        if (spec.verify() && !verification.ok()) {
            throw new ToolFailure("verification failed: " + verification.detail());
        }
        List<PeerAddress> local = new ArrayList<>();
        List<PeerAddress> remote = new ArrayList<>();
        for (int i = 0; i < spec.numQps(); i++) {
            local.add(mine[i].toPeerAddress(params.gidIndex != -1));
            remote.add(theirs[i].toPeerAddress(params.gidIndex != -1));
        }
        return new PerfRun(test, server, params.deviceName, rows, local, remote, verification, qpTimeout,
                trafficClass);
    }

    private void exchangeVersions() {
        byte[] v = new byte[CommLink.VERSION_BYTES];
        byte[] text = CommLink.VERSION.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, v, 0, text.length);
        byte[] mark = JRDMA_MARK.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(mark, 0, v, text.length + 1, mark.length);
        byte[] theirsV = comm.exchange(v, spec.timeout(), "version");
        double version = CommLink.atof(theirsV);
        if (version < CommLink.MIN_PEER_VERSION) {
            throw new ToolFailure("Current implementation is not compatible with versions older than 5.70 (the peer "
                    + "says '" + CommLink.cString(theirsV) + "'; is it perftest with -R?) [" + theirsV.length
                    + " bytes: " + java.util.HexFormat.of().formatHex(theirsV, 0, Math.min(theirsV.length, 24))
                    + "]");
        }
        String tail = new String(theirsV, java.nio.charset.StandardCharsets.ISO_8859_1);
        peerIsJrdma = tail.contains(JRDMA_MARK);
    }

    // ------------------------------------------------------------------ parameters

    private boolean noPeak() {
        return spec.noPeak() || spec.runInfinitely() || (test == PerfTest.SEND_BW && server)
                || !BwStats.peakWanted(spec.iterations(), spec.timed(), false);
    }

    /** {@code -T} and {@code -u} on a data connection's id, before its route is resolved or it is accepted. */
    private void connectionOptions(CmId id, boolean active) {
        try {
            if (active && spec.tos() != -1) {
                id.setTos(spec.tos());
            }
            if (spec.qpTimeout() != -1 && spec.connection() == QpType.RC) {
                id.setAckTimeout(spec.qpTimeout());
            }
        } catch (RuntimeException e) {
            throw new ToolFailure("rdma_set_option: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ data connections

    private CmEvent awaitRequest(Duration wait, String who) {
        long deadline = wait.isZero() ? Long.MAX_VALUE : System.nanoTime() + wait.toNanos();
        while (true) {
            CmEvent e;
            try {
                e = listenCh.getEvent(Duration.ofMillis(200));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new ToolFailure("interrupted while waiting for " + who, ie);
            }
            if (e == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new ToolFailure("no connection request from " + who + " within " + wait.toSeconds() + " s");
                }
                continue;
            }
            listenCh.ackEvent(e);
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                return e;
            }
        }
    }

    private ConnParam connParam(int qpNum) {
        int depth = test.verb() == Verb.READ || test.verb() == Verb.ATOMIC ? params.outReads : 0;
        return new ConnParam(null, depth, depth, false, 7, 7, false, qpNum);
    }

    /** {@code rdma_cm_server_connection}: accepts {@code numQps} data connections. */
    private void acceptData() {
        int n = spec.numQps();
        ids = new CmId[n];
        dataCh = cleanup.add(cm.createEventChannel());
        data = newDataPath();
        boolean udLat = spec.connection() == QpType.UD && !test.bandwidth();
        for (int i = 0; i < n; i++) {
            CmEvent req = awaitRequest(spec.timeout(), "the client's data connection " + (i + 1) + " of " + n);
            CmId id = req.id();
            ids[i] = id;
            dataCh.migrateId(id);
            cleanup.onClose(id::destroy);
            if (i == 0) {
                data.init(id.verbs());
            }
            data.createQp(i, id);
            cleanup.onClose(id::destroyQp);
            if (udLat) {
                postUdParamRecv(i);
            }
            connectionOptions(id, false);
            try {
                id.accept(connParam(spec.connection() == QpType.UD ? data.qp(i).qpNum() : 0));
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_accept", e, comm.peer());
            }
            if (spec.connection() == QpType.RC && !params.iwarp) {
                try {
                    data.qp(i).modify(new QpAttr().minRnrTimer(MIN_RNR_TIMER));
                } catch (RuntimeException e) {
                    // perftest ignores the result too
                }
            }
            if (udLat) {
                WorkCompletion wc = new CqWaiter(data.recvCq(), null).next(spec.timeout(),
                        "the client's UD QP number");
                if (wc.status() != WcStatus.SUCCESS) {
                    throw new ToolFailure("Bad WQE status when trying to create AH for UD connection: " + wc.status());
                }
                InetSocketAddress peer = id.peerAddress();
                AddressHandle h = data.createAh(AhAttr.to(peer.getAddress()));
                data.udDestination(i, h, wc.immData(), RDMA_UDP_QKEY);
            }
        }
    }

    /** {@code rdma_cm_request_ud_connection_parameters}: a receive for the client's QP number. */
    private void postUdParamRecv(int i) {
        RecvWr r = new RecvWr().wrId(0).sg(data.mr(), 0, DataPath.UD_ADDITION + Integer.BYTES);
        if (data.qp(i).postRecv(r) != 1) {
            throw new ToolFailure("Failed to post receive for RDMA CM UD request connection parameters");
        }
    }

    /** {@code rdma_cm_client_connection}: connects {@code numQps} data connections, retrying. */
    private void connectData() {
        if (!peerIsJrdma) {
            sleep(LINUX_SERVER_GRACE);
        }
        dataCh = cleanup.add(cm.createEventChannel());
        data = newDataPath();
        ToolFailure last = null;
        for (int attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
            CmId[] attemptIds = new CmId[spec.numQps()];
            try {
                connectDataOnce(attemptIds);
                ids = attemptIds;
                for (CmId id : ids) {
                    cleanup.onClose(id::destroy);
                    cleanup.onClose(id::destroyQp);
                }
                return;
            } catch (ToolFailure f) {
                last = f;
                for (CmId id : attemptIds) {
                    if (id != null) {
                        destroyQuietly(id);
                    }
                }
                sleep(CONNECT_RETRY_DELAY);
            }
        }
        throw new ToolFailure("Failed to connect RDMA CM client, tried " + CONNECT_ATTEMPTS + " times: "
                + last.getMessage(), last);
    }

    private void connectDataOnce(CmId[] attemptIds) {
        int n = attemptIds.length;
        String peer = Hosts.endpoint(target);
        PortSpace ps = spec.connection() == QpType.UD ? PortSpace.UDP : PortSpace.TCP;
        Map<CmId, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            attemptIds[i] = dataCh.createId(null, ps, spec.connection());
            index.put(attemptIds[i], i);
            connectionOptions(attemptIds[i], true);
        }
        for (int i = 0; i < n; i++) {
            try {
                attemptIds[i].resolveAddr(source, target, Duration.ofMillis(2000));
            } catch (RdmaException e) {
                throw CmWait.callFailed("rdma_resolve_addr", e, peer);
            }
        }
        int left = n;
        boolean udLat = spec.connection() == QpType.UD && !test.bandwidth();
        while (left > 0) {
            CmEvent e = CmWait.next(dataCh, spec.timeout(), "rdma_cm event of the data connections to " + peer);
            dataCh.ackEvent(e);
            Integer at = index.get(e.id());
            if (at == null) {
                continue;
            }
            int i = at;
            CmId id = attemptIds[i];
            switch (e.type()) {
                case ADDR_RESOLVED -> id.resolveRoute(Duration.ofMillis(2000));
                case ROUTE_RESOLVED -> {
                    if (!data.initialized()) {
                        data.init(id.verbs());
                    }
                    data.createQp(i, id);
                    try {
                        id.connect(connParam(0));
                    } catch (RdmaException ex) {
                        throw CmWait.callFailed("rdma_connect", ex, peer);
                    }
                }
                case ESTABLISHED -> {
                    if (spec.connection() == QpType.UD) {
                        AddressHandle h = data.createAh(e.ud().ahAttr());
                        data.udDestination(i, h, e.ud().qpNum(), e.ud().qkey());
                        if (udLat) {
                            sendUdQpNumber(i, h, e.ud().qpNum(), e.ud().qkey());
                        }
                    }
                    left--;
                }
                case DISCONNECTED, TIMEWAIT_EXIT -> {
                    // leftovers of an earlier attempt
                }
                default -> throw new ToolFailure(CmWait.describe(e, peer, CmEventType.ESTABLISHED));
            }
        }
    }

    /** {@code rdma_cm_send_ud_connection_parameters}: tells the server this QP's number. */
    private void sendUdQpNumber(int i, AddressHandle h, int qpn, int qkey) {
        SendWr w = new SendWr().wrId(0).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED)
                .sg(data.mr(), 0, Integer.BYTES).immData(data.qp(i).qpNum()).ud(h, qpn, qkey);
        if (data.qp(i).postSend(w) != 1) {
            throw new ToolFailure("Failed to post send for RDMA CM UD send connection parameters");
        }
        WorkCompletion wc = new CqWaiter(data.sendCq(), null).next(spec.timeout(), "the UD QP number send");
        if (wc.status() != WcStatus.SUCCESS) {
            throw new ToolFailure("Bad WQE status when trying to send UD connection parameters: " + wc.status());
        }
    }

    private DataPath newDataPath() {
        return new DataPath(test, server, spec.numQps(), spec.connection(), spec.events(), params.txDepth,
                params.rxDepth, params.inlineSize, params.credits, cycleBuffer, cacheLine, spec.maxSize(),
                spec.timeout(), spec.compareAndSwap(),
                spec.postList(), cleanup);
    }

    private static void destroyQuietly(CmId id) {
        try {
            if (id.qp() != null) {
                id.destroyQp();
            }
        } catch (RuntimeException e) {
            // already gone
        }
        try {
            id.destroy();
        } catch (RuntimeException e) {
            // already gone
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted", e);
        }
    }

    // ------------------------------------------------------------------ banner and addresses

    /** {@code set_up_connection} and {@code ctx_print_test_info}. */
    private void setUpConnection() {
        int n = spec.numQps();
        mine = new PingpongDest[n];
        theirs = new PingpongDest[n];
        for (int i = 0; i < n; i++) {
            int psn = ThreadLocalRandom.current().nextInt() & 0xFFFFFF;
            mine[i] = data.localDest(i, params.lid, params.outReads, psn, params.gid, params.gidIndex);
        }
        TestInfo.Builder info = TestInfo.builder(test.verb(), test.kind())
                .device(params.deviceName).numQps(n).transportType(params.iwarp ? "IW" : "IB")
                .connectionType(spec.connection().name()).server(server).txDepth(params.txDepth)
                .rxDepth(params.rxDepth).cqModeration(params.cqMod).mtu(params.mtuBytes).linkType(params.linkType)
                .gidIndex(params.gidIndex).inlineSize(params.inlineSize)
                .outReads(params.outReads).rdmaCm(true).pcieRelaxOrder(test == PerfTest.WRITE_LAT ? "OFF" : "ON")
                .bidirectional(spec.duplex()).postList(spec.postList()).tos(spec.tos());
        if (test.verb() == Verb.ATOMIC) {
            info.atomicType(spec.compareAndSwap() ? "CMP_AND_SWAP" : "FETCH_AND_ADD");
        }
        if (spec.events()) {
            info.events(params.deviceName, 0);
        }
        reporter.banner(info.build().lines());
    }

    private void handshakeAll(Duration wait) {
        for (int i = 0; i < spec.numQps(); i++) {
            theirs[i] = comm.handshake(mine[i], params.gidIndex, wait);
        }
    }

    private void printLocal() {
        for (PingpongDest d : mine) {
            printAddress("local", d);
        }
    }

    private void handshakeAndPrintRemote() {
        for (int i = 0; i < spec.numQps(); i++) {
            theirs[i] = comm.handshake(mine[i], params.gidIndex, spec.timeout());
            printAddress("remote", theirs[i]);
        }
    }

    private void printAddress(String side, PingpongDest d) {
        PeerAddress a = d.toPeerAddress(params.gidIndex != -1);
        reporter.line(a.addressLine(side, false, false));
        reporter.line(a.gidLine());
    }

    private void header(boolean latency) {
        reporter.header(latency ? (spec.timed() ? PerftestFormat.LAT_DURATION_HEADER : PerftestFormat.LAT_HEADER)
                : PerftestFormat.bwHeader(spec.unit()));
    }

    private PingpongDest hs(Duration wait) {
        return comm.handshake(mine[0], params.gidIndex, wait);
    }

    // ------------------------------------------------------------------ the tools

    /** write_bw.c, read_bw.c, atomic_bw.c. */
    private void rdmaBw() {
        handshakeAll(spec.timeout());
        printLocal();
        handshakeAndPrintRemote();
        hs(spec.timeout());
        header(false);
        if (spec.duplex()) {
            duplexBw();
            return;
        }
        if (spec.runInfinitely() && !server) {
            data.setSendWqes(theirs, spec.sizes().get(0), params.cqMod);
            runInfinitely(spec.sizes().get(0));
        }
        if (server) {
            hs(CommLink.UNBOUNDED);
            CommLink.BwReport theirReport = comm.exchangeReports(new CommLink.BwReport(0, 0, 0, 0, 0));
            BwResult row = new BwResult(theirReport.size(), theirReport.iterations(), theirReport.bwPeak(),
                    theirReport.bwAverage(), theirReport.msgRate(), spec.unit());
            rows.add(row);
            reporter.row(row);
            if (spec.verify()) {
                verification = data.verify(spec.sizes().get(0), spec.iterations(),
                        test.verb() != Verb.READ);
            }
            hs(CommLink.UNBOUNDED);
            reporter.footer();
            return;
        }
        BwResult last = null;
        for (int size : spec.sizes()) {
            data.setSendWqes(theirs, size, params.cqMod);
            // The server waits passively: only this side runs it. Not for atomics: the target's counters would
            // carry the warm-up's additions into the measured run's result. A multiple of the CQ moderation
            // and post list: an unsignaled tail would keep its send-queue slots into the measured run.
            long w = test.verb() == Verb.ATOMIC ? 0
                    : warmup.iterations(size, params.cqMod * Math.max(1, spec.postList()));
            warmup.run(size, w, w * spec.numQps(), true,
                    m -> data.runBw(size, w, params.cqMod, false, spec.unit(), 0, 0, m));
            try (RunMonitor m = monitor(size)) {
                last = data.runBw(size, spec.iterations(), params.cqMod, !noPeak(), spec.unit(), spec.durationSeconds(),
                        spec.marginSeconds(), m);
            }
            rows.add(last);
            reporter.row(last);
            if (spec.verify()) {
                verification = data.verify(size, spec.iterations(), test.verb() == Verb.READ);
            }
        }
        reporter.footer();
        hs(CommLink.UNBOUNDED);
        comm.exchangeReports(new CommLink.BwReport(last.bytes(), last.iterations(), last.bwPeak(),
                last.bwAverage(), last.msgRateMpps()));
        hs(CommLink.UNBOUNDED);
    }

    /**
     * {@code -b} of write_bw.c, read_bw.c and atomic_bw.c: both sides post; before each size a handshake
     * starts them together; each side prints the sum of both sides' figures (exchanged as in a one-way
     * run), and with {@code --report-both} each side's row as well.
     */
    private void duplexBw() {
        if (spec.runInfinitely()) {
            data.setSendWqes(theirs, spec.sizes().get(0), params.cqMod);
            hs(CommLink.UNBOUNDED);
            runInfinitely(spec.sizes().get(0));
        }
        for (int size : spec.sizes()) {
            data.setSendWqes(theirs, size, params.cqMod);
            hs(CommLink.UNBOUNDED);
            BwResult mineRow;
            try (RunMonitor m = monitor(size)) {
                mineRow = data.runBw(size, spec.iterations(), params.cqMod, !noPeak(), spec.unit(),
                        spec.durationSeconds(), spec.marginSeconds(), m);
            }
            if (spec.allSizes()) {
                hs(CommLink.UNBOUNDED);
            }
            CommLink.BwReport r = comm.exchangeReports(new CommLink.BwReport(mineRow.bytes(), mineRow.iterations(),
                    mineRow.bwPeak(), mineRow.bwAverage(), mineRow.msgRateMpps()));
            BwResult theirsRow = new BwResult(r.size(), r.iterations(), r.bwPeak(), r.bwAverage(), r.msgRate(),
                    spec.unit());
            BwResult sum = new BwResult(mineRow.bytes(), mineRow.iterations(), mineRow.bwPeak() + theirsRow.bwPeak(),
                    mineRow.bwAverage() + theirsRow.bwAverage(), mineRow.msgRateMpps() + theirsRow.msgRateMpps(),
                    spec.unit());
            rows.add(sum);
            reporter.row(sum);
            if (spec.reportBoth()) {
                reportBoth(mineRow, theirsRow);
            }
        }
        reporter.footer();
        hs(CommLink.UNBOUNDED);
    }

    /** {@code --report-both}: this side's and the peer's rows under headers of their own. */
    private void reportBoth(BwResult local, BwResult remote) {
        reporter.line(PerftestFormat.RESULT_LINE);
        reporter.line("");
        reporter.line(" Local results: ");
        header(false);
        reporter.row(local);
        reporter.line(PerftestFormat.RESULT_LINE);
        reporter.line("");
        reporter.line(" Remote results: ");
        header(false);
        reporter.row(remote);
    }

    /**
     * {@code --run_infinitely}: a row for every {@code -D} period, until the peer goes away or this process
     * is stopped (as {@code run_iter_bw_infinitely}, the posting never stops between periods but for the
     * completions of the last one).
     */
    private void runInfinitely(int size) {
        while (true) {
            BwResult row;
            try (RunMonitor m = monitor(size)) {
                row = data.runBw(size, spec.iterations(), params.cqMod, false, spec.unit(), spec.durationSeconds(),
                        0, m);
            }
            if (spec.duplex()) {
                // perftest's run_inf_bi_factor: both directions, estimated as twice this side's.
                row = new BwResult(row.bytes(), row.iterations(), 0, 2 * row.bwAverage(), 2 * row.msgRateMpps(),
                        row.unit());
            }
            rows.add(row);
            reporter.row(row);
        }
    }

    /** send_bw.c. */
    private void sendBw() {
        handshakeAll(spec.timeout());
        data.setCreditWqes(theirs);
        hs(spec.timeout());
        printLocal();
        handshakeAndPrintRemote();
        header(false);
        for (int size : spec.sizes()) {
            int posted = 0;
            if (server) {
                posted = data.setRecvWqes(size);
            } else {
                data.setSendWqes(theirs, size, params.cqMod);
            }
            hs(CommLink.UNBOUNDED);
            data.resetCredits();
            BwResult row;
            try (RunMonitor m = monitor(size)) {
                row = server ? data.runBwServer(size, spec.iterations(), posted, spec.unit(), spec.durationSeconds(),
                        spec.marginSeconds(), m)
                        : data.runBw(size, spec.iterations(), params.cqMod, !noPeak(), spec.unit(),
                        spec.durationSeconds(), spec.marginSeconds(), m);
            }
            rows.add(row);
            reporter.row(row);
            if (spec.verify()) {
                verification = data.verify(size, spec.iterations(), server);
            }
            if (spec.multiSize()) {
                hs(CommLink.UNBOUNDED);
            }
        }
        reporter.footer();
        hs(CommLink.UNBOUNDED);
    }

    /** write_lat.c. */
    private void writeLat() {
        hs(spec.timeout());
        handshakeAll(spec.timeout());
        printLocal();
        handshakeAndPrintRemote();
        hs(spec.timeout());
        data.setSendWqes(theirs, spec.sizes().get(0), 1);
        header(true);
        for (int size : spec.sizes()) {
            if (spec.verify()) {
                data.refillSource(size);
            }
            // Both sides run it (a ping-pong), in a multiple of 256 iterations: the byte each side polls then
            // holds 0 afterwards, not the 1 the measured run's first iteration waits for.
            long w = warmup.iterations(size, 256);
            warmup.run(size, w, w, false, m -> data.runLatWrite(size, w, 0, 0, m));
            PerfResult row;
            try (RunMonitor m = monitor(size)) {
                row = data.runLatWrite(size, spec.iterations(), spec.durationSeconds(), spec.marginSeconds(), m);
            }
            row = latencyReport(row);
            rows.add(row);
            reporter.row(row);
        }
        if (spec.verify()) {
            verification = data.verify(spec.sizes().get(spec.sizes().size() - 1), spec.iterations(), true);
        }
        reporter.footer();
    }

    /** read_lat.c. */
    private void readLat() {
        hs(spec.timeout());
        handshakeAll(spec.timeout());
        printLocal();
        handshakeAndPrintRemote();
        hs(spec.timeout());
        if (server) {
            hs(CommLink.UNBOUNDED);
            reporter.footer();
            return;
        }
        header(true);
        data.setSendWqes(theirs, spec.sizes().get(0), 1);
        for (int size : spec.sizes()) {
            long w = warmup.iterations(size); // the server waits passively: only this side runs it
            warmup.run(size, w, w, true, m -> data.runLatRead(size, w, 0, 0, m));
            PerfResult row;
            try (RunMonitor m = monitor(size)) {
                row = data.runLatRead(size, spec.iterations(), spec.durationSeconds(), spec.marginSeconds(), m);
            }
            row = latencyReport(row);
            rows.add(row);
            reporter.row(row);
            if (spec.verify()) {
                verification = data.verify(size, spec.iterations(), true);
            }
        }
        hs(CommLink.UNBOUNDED);
        reporter.footer();
    }

    /** send_lat.c. */
    private void sendLat() {
        handshakeAll(spec.timeout());
        hs(spec.timeout());
        printLocal();
        handshakeAndPrintRemote();
        header(true);
        data.setSendWqes(theirs, spec.sizes().get(0), 1);
        for (int size : spec.sizes()) {
            data.setRecvWqes(size);
            hs(CommLink.UNBOUNDED);
            PerfResult row;
            try (RunMonitor m = monitor(size)) {
                row = data.runLatSend(size, spec.iterations(), 1, spec.durationSeconds(), spec.marginSeconds(), m);
            }
            row = latencyReport(row);
            rows.add(row);
            reporter.row(row);
            if (spec.verify()) {
                verification = data.verify(size, spec.iterations(), true);
            }
        }
        reporter.footer();
        hs(CommLink.UNBOUNDED);
    }

    /**
     * {@code -U}, {@code -H} and {@code -C} as perftest's {@code print_report_lat}: the samples in the order
     * measured, then sorted without the two largest, each as {@code "N, value"} under {@code "#, usec"} (or
     * cycles), then the column header again; the row in cycles with {@code -C}.
     */
    private PerfResult latencyReport(PerfResult row) {
        PerfSpec.LatencyReport lr = spec.latency();
        if (!lr.any() || !(row instanceof LatResult lat)) {
            return row;
        }
        double mhz = lr.cycles() ? CpuClock.mhz() : 0;
        double perNano = lr.cycles() ? mhz / 1e3 : 1e-3;
        String units = lr.cycles() ? "cycles" : "usec";
        double[] samples = data.lastLatencySamples();
        if (lr.unsorted()) {
            reporter.line("#, " + units);
            for (int i = 0; i < samples.length; i++) {
                reporter.line((i + 1) + ", " + CpuClock.g(samples[i] * perNano));
            }
        }
        if (lr.histogram()) {
            double[] sorted = samples.clone();
            java.util.Arrays.sort(sorted);
            reporter.line("#, " + units);
            for (int i = 0; i < sorted.length - 2; i++) {
                reporter.line((i + 1) + ", " + CpuClock.g(sorted[i] * perNano));
            }
        }
        if (lr.unsorted() || lr.histogram()) {
            header(true);
        }
        return lr.cycles() ? lat.scaled(mhz) : lat;
    }

    private RunMonitor monitor(int size) {
        long target = spec.timed() ? 0 : spec.iterations() * (test.bandwidth() ? spec.numQps() : 1);
        return new RunMonitor(test.command() + " " + size + " B", target, err, progress,
                spec.timeout().toNanos(), data::stall);
    }

    // ------------------------------------------------------------------ teardown

    /**
     * {@code destroy_ctx} with rdma_cm: the client disconnects its data connections and waits for
     * their DISCONNECTED events; the server first gives the client a moment to disconnect (so the
     * side that read the last control message closes first and that message is never cut off by
     * a close), then disconnects too. Both then release everything.
     */
    private void teardown() {
        boolean rc = ids != null && spec.connection() == QpType.RC;
        if (server && rc) {
            awaitDisconnects(1, SERVER_LINGER);
        }
        if (rc) {
            for (CmId id : ids) {
                try {
                    id.disconnect();
                } catch (RuntimeException e) {
                    // the peer may have gone already
                }
            }
            if (!server) {
                awaitDisconnects(ids.length, DISCONNECT_WAIT);
            }
        }
        comm.disconnect();
    }

    private void awaitDisconnects(int n, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        int seen = 0;
        while (seen < n && System.nanoTime() - deadline < 0) {
            CmEvent e;
            try {
                e = dataCh.getEvent(Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(
                        Math.max(1_000_000, deadline - System.nanoTime()))));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
            if (e == null) {
                return;
            }
            dataCh.ackEvent(e);
            if (e.type() == CmEventType.DISCONNECTED) {
                seen++;
            }
        }
    }
}
