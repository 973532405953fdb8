package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventHandler;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.IwCmEventType;
import io.jrdma.cm.IwCmHandler;
import io.jrdma.cm.IwCmId;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.TermError;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.Rdma;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WcStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile peers against rdma_cm on siw, as an application such as {@code jrdma rping -s -P} sees them: a
 * {@link RawPeer} sends MPA bytes to a listener with rping's backlog of 3, or answers a jrdma client.
 * Every value read from the wire reaches the application only within the API's range, every request
 * holds its backlog slot only while the application can answer it, and every failure the peer causes
 * is an rdma_cm event or an {@link RdmaException}. After each case a normal jrdma client still connects
 * ({@link #assertServes}); {@link Hygiene} checks that no exception reached an uncaught-exception
 * handler, nothing was logged at WARNING, and no thread, socket or QP outlived the test.
 */
class CmHostilePeerIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** rping's listen backlog. */
    private static final int BACKLOG = 3;
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    @RegisterExtension
    final Hygiene hygiene = new Hygiene().allowLog("handler threw on (RDMA_CM_EVENT_)?CONNECT_REQUEST");
    private RdmaCm cm;
    private EventChannel server;
    private EventChannel clients;
    private CmId listener;
    private InetSocketAddress at;
    private final List<AutoCloseable> closeLater = new ArrayList<>();

    @BeforeEach
    void listen() {
        cm = RdmaCm.open("siw0");
        server = cm.createEventChannel();
        clients = cm.createEventChannel();
        listener = server.createId(null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(LO, 0));
        listener.listen(BACKLOG);
        at = new InetSocketAddress(LO, listener.localPort());
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeLater) {
            c.close();
        }
        cm.close();
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static CmEvent next(EventChannel ch, CmEventType type) throws InterruptedException {
        CmEvent e = ch.getEvent(WAIT);
        assertThat(e).as("a %s event within %s", type.str(), WAIT).isNotNull();
        ch.ackEvent(e);
        assertThat(e.type()).as("event %s", e).isEqualTo(type);
        return e;
    }

    private static void noEvent(EventChannel ch, Duration d) throws InterruptedException {
        CmEvent e = ch.getEvent(d);
        if (e != null) {
            ch.ackEvent(e);
        }
        assertThat(e).as("no CM event").isNull();
    }

    /** A QP on {@code id}'s device, with {@code recvs} receives posted. */
    private static CompletionQueue withQp(CmId id, int recvs) {
        ProtectionDomain pd = id.verbs().allocPd();
        CompletionQueue cq = id.verbs().createCq(16, null, 0);
        id.createQp(pd, QpInitAttr.rc(cq, new QpCap(4, 4, 1, 1, 0)));
        if (recvs > 0) {
            MemoryRegion mr = pd.registerMemory(java.nio.ByteBuffer.allocateDirect(64 * recvs), Access.LOCAL_WRITE);
            for (int i = 0; i < recvs; i++) {
                id.qp().postRecv(new RecvWr().wrId(i).sg(mr, 64L * i, 64));
            }
        }
        return cq;
    }

    /** A raw peer connected to the listener. */
    private RawPeer raw() {
        RawPeer p = RawPeer.connect(at);
        closeLater.add(p);
        return p;
    }

    /** A client id from {@code from} (any port if null) with its route to {@code to} and a QP. */
    private CmId client(InetSocketAddress from, InetSocketAddress to) throws InterruptedException {
        CmId client = clients.createId(null, PortSpace.TCP);
        client.resolveAddr(from, to, WAIT);
        next(clients, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(WAIT);
        next(clients, CmEventType.ROUTE_RESOLVED);
        withQp(client, 0);
        return client;
    }

    /**
     * A normal jrdma client connects and the application accepts it: the listener was not wedged by what
     * came before. Both sides disconnect and are destroyed again.
     */
    private void assertServes() throws InterruptedException {
        serve(null, true);
    }

    /**
     * A normal client from {@code from} is accepted, then disconnects ({@code clientCloses}) or is
     * disconnected; returns the port it came from as the server saw it.
     */
    private int serve(InetSocketAddress from, boolean clientCloses) throws InterruptedException {
        CmId client = client(from, at);
        client.connect(ConnParam.defaults());
        CmEvent req = next(server, CmEventType.CONNECT_REQUEST);
        withQp(req.id(), 0);
        req.id().accept(ConnParam.defaults());
        next(server, CmEventType.ESTABLISHED);
        next(clients, CmEventType.ESTABLISHED);
        (clientCloses ? client : req.id()).disconnect();
        next(clients, CmEventType.DISCONNECTED);
        next(server, CmEventType.DISCONNECTED);
        int port = req.id().peerPort();
        req.id().destroyQp();
        req.id().destroy();
        client.destroyQp();
        client.destroy();
        return port;
    }

    /** Waits until this host's TCP table no longer holds the connection from {@code peer} to the listener. */
    private void awaitConnectionGone(RawPeer peer) {
        Path table = Path.of("/proc/net/tcp");
        if (!Files.isReadable(table)) {
            return; // not Linux: the accept below may also see the reset as a DISCONNECTED
        }
        String local = String.format(Locale.ROOT, ":%04X", at.getPort());
        String remote = String.format(Locale.ROOT, ":%04X", peer.socket().getLocalPort());
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (Files.readAllLines(table).stream().map(l -> l.trim().split("\\s+"))
                        .noneMatch(f -> f.length > 3 && f[1].endsWith(local) && f[2].endsWith(remote))) {
                    return;
                }
            } catch (IOException e) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("jrdma's end of the connection from port " + peer.socket().getLocalPort()
                + " did not take the reset within " + WAIT);
    }

    // ================================================================================== wire values

    /**
     * MPA v2 carries 14-bit IRD/ORD, rdma_cm's conn_param 8-bit ones: a request with legal values above 255
     * once made the iw_cm handler throw after the request had taken its backlog slot, so three of them
     * (rping's backlog) wedged the listener for good. siw_proc_mpareq caps both at siw's maximum (128)
     * when it reads the request; so does jrdma, and the application answers as for any request.
     */
    @Test
    void mpaDepthsAboveWhatConnParamHoldsAreCappedAtReadAndNeverWedgeTheListener() throws Exception {
        int[][] depths = {{0x3FFF, 0x3FFF}, {256, 300}, {255, 256}, {4096, 1}, {1, 0x2000}, {129, 128}};
        for (int[] d : depths) {
            RawPeer p = raw();
            p.sendMpa(MpaRequest.v2(false, d[0], d[1], "hi".getBytes(StandardCharsets.US_ASCII)));
            CmEvent req = next(server, CmEventType.CONNECT_REQUEST);
            assertThat(req.param().initiatorDepth()).as("the peer's IRD %d, capped", d[0])
                    .isEqualTo(Math.min(d[0], SiwDevice.MAX_ORD_IRD));
            assertThat(req.param().responderResources()).as("the peer's ORD %d, capped", d[1])
                    .isEqualTo(Math.min(d[1], SiwDevice.MAX_ORD_IRD));
            assertThat(req.param().privateData()).asString(StandardCharsets.US_ASCII).isEqualTo("hi");
            req.id().reject("no".getBytes(StandardCharsets.US_ASCII));
            MpaReply r = (MpaReply) p.readMpa();
            assertThat(r.reject()).isTrue();
            assertThat(r.privateData()).asString(StandardCharsets.US_ASCII).isEqualTo("no");
            req.id().destroy();
        }
        // Accepted, the capped depths are what the QP gets.
        RawPeer p = raw();
        p.sendMpa(MpaRequest.v2(false, 0x3FFF, 0x3FFF, new byte[0]));
        CmEvent req = next(server, CmEventType.CONNECT_REQUEST);
        withQp(req.id(), 0);
        req.id().accept(req.param().withPrivateData(null));
        MpaReply reply = (MpaReply) p.readMpa();
        assertThat(reply.reject()).isFalse();
        assertThat(reply.v2()).get().extracting(MpaV2Ctrl::ird, MpaV2Ctrl::ord)
                .containsExactly(SiwDevice.MAX_ORD_IRD, SiwDevice.MAX_ORD_IRD);
        next(server, CmEventType.ESTABLISHED);
        p.close();
        next(server, CmEventType.DISCONNECTED);
        req.id().destroyQp();
        req.id().destroy();
        assertServes();
    }

    /**
     * A responder's reply with an IRD above what conn_param holds once made the active side's handler throw:
     * the connect never ended. The IRD only bounds this side's ORD; it is reported capped. An ORD above
     * what this side can serve is refused with TERMINATE "insufficient IRD", as siw_proc_mpareply does.
     */
    @Test
    void aReplyWhoseDepthsExceedConnParamsRangeEndsTheConnectEitherWay() throws Exception {
        for (int ord : new int[] {1, 0x3FFF}) {
            try (ServerSocket s = RawPeer.listen()) {
                CmId client = client(null, (InetSocketAddress) s.getLocalSocketAddress());
                client.connect(ConnParam.defaults().withResources(4, 4));
                try (RawPeer p = RawPeer.accept(s)) {
                    p.readMpa();
                    p.sendMpa(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(0x3FFF, ord)),
                            new byte[0]));
                    if (ord == 1) {
                        CmEvent up = next(clients, CmEventType.ESTABLISHED);
                        assertThat(up.param().initiatorDepth()).as("the responder's IRD 16383, capped")
                                .isEqualTo(SiwDevice.MAX_ORD_IRD);
                        assertThat(client.qp().query().maxRdAtomic()).as("our ORD: what we asked, 4").isEqualTo(4);
                        client.disconnect();
                        assertThat(p.expectClose(0)).isEqualTo("FIN");
                        p.close();
                        next(clients, CmEventType.DISCONNECTED);
                    } else {
                        CmEvent failed = next(clients, CmEventType.CONNECT_ERROR);
                        assertThat(failed.status()).isEqualTo(Errno.EINVAL.status());
                        assertThat(p.readTerminate().error()).contains(TermError.MPA_INSUFFICIENT_IRD);
                    }
                }
                client.destroyQp();
                client.destroy();
            }
        }
        assertServes();
    }

    // ================================================================================== malformed requests

    /**
     * What siw_proc_mpareq answers each malformed request with, and that none reaches the application or
     * holds a slot: more of them than the backlog, then a normal client.
     */
    @Test
    void noMalformedRequestReachesTheApplicationOrHoldsASlot() throws Exception {
        byte[] good = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
        for (int round = 0; round < 2; round++) {
            // Bad key: closed without a reply.
            RawPeer badKey = raw();
            byte[] k = good.clone();
            k[0] ^= 0x01;
            badKey.write(k);
            assertThat(badKey.expectClose(0)).isEqualTo("FIN");
            // Revision 3: closed without a reply.
            RawPeer rev3 = raw();
            byte[] r3 = good.clone();
            r3[MpaFrame.REVISION_OFFSET] = 3;
            rev3.write(r3);
            assertThat(rev3.expectClose(0)).isEqualTo("FIN");
            // PD_Length 257: closed, the rest unread.
            RawPeer pd257 = raw();
            byte[] big = new byte[MpaFrame.HEADER_LENGTH + 257];
            System.arraycopy(good, 0, big, 0, good.length);
            big[MpaFrame.PD_LENGTH_OFFSET] = 0x01;
            big[MpaFrame.PD_LENGTH_OFFSET + 1] = 0x01;
            pd257.write(big);
            assertThat(pd257.expectClose(0)).isIn("FIN", "RST");
            // H without room for the v2 block: a reject, then FIN.
            for (int pd = 0; pd < MpaV2Ctrl.LENGTH; pd++) {
                RawPeer h = raw();
                h.write(shortEnhanced(pd));
                assertRejectOfShortEnhanced(h.read(MpaFrame.HEADER_LENGTH));
                assertThat(h.expectClose(0)).isEqualTo("FIN");
            }
            // Markers: a reject with M cleared, then FIN.
            RawPeer m = raw();
            m.sendMpa(new MpaRequest(2, true, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
            assertThat(((MpaReply) m.readMpa()).reject()).isTrue();
            assertThat(m.expectClose(0)).isEqualTo("FIN");
            // Data behind the request, before the reply (siw: "peer sent extra data"): dropped, no reply.
            RawPeer extra = raw();
            byte[] withData = java.util.Arrays.copyOf(good, good.length + 8);
            extra.write(withData);
            assertThat(extra.expectClose(0)).isIn("FIN", "RST");
        }
        noEvent(server, Duration.ofMillis(200));
        assertServes();
    }

    /** A revision 2 request with H whose PD_Length ({@code pd}, below 4) has no room for the v2 block. */
    static byte[] shortEnhanced(int pd) {
        byte[] b = new byte[MpaFrame.HEADER_LENGTH + pd];
        System.arraycopy(MpaFrame.REQUEST_KEY.getBytes(StandardCharsets.US_ASCII), 0, b, 0, MpaFrame.KEY_LENGTH);
        b[MpaFrame.FLAGS_OFFSET] = (byte) MpaFrame.FLAG_ENHANCED;
        b[MpaFrame.REVISION_OFFSET] = MpaFrame.REVISION_2;
        b[MpaFrame.PD_LENGTH_OFFSET + 1] = (byte) pd;
        for (int i = 0; i < pd; i++) {
            b[MpaFrame.HEADER_LENGTH + i] = (byte) (0x11 * (i + 1));
        }
        return b;
    }

    /**
     * siw's reject of a request with H and no room for the block: the reply key, the request's H and
     * revision echoed, R set, PD_Length 0 ({@code siw_proc_mpareq}, label {@code reject_conn}).
     */
    static void assertRejectOfShortEnhanced(byte[] head) {
        String hex = HexFormat.of().formatHex(head);
        assertThat(new String(head, 0, MpaFrame.KEY_LENGTH, StandardCharsets.US_ASCII)).as(hex)
                .isEqualTo(MpaFrame.REPLY_KEY);
        assertThat(head[MpaFrame.FLAGS_OFFSET] & 0xF0).as("R and H set, M and C clear: " + hex)
                .isEqualTo(MpaFrame.FLAG_REJECT | MpaFrame.FLAG_ENHANCED);
        assertThat(head[MpaFrame.REVISION_OFFSET]).isEqualTo((byte) MpaFrame.REVISION_2);
        assertThat(MpaFrame.pdLength(java.lang.foreign.MemorySegment.ofArray(head), 0)).as("PD_Length").isZero();
    }

    // ================================================================================== slots

    /**
     * A kernel-style handler that throws on CONNECT_REQUEST is a handler that failed: cma.c destroys the id
     * of a request whose handler returned an error. The request is rejected and its slot is free again; it
     * once stayed taken, and with a backlog of 1 the next request was refused.
     */
    @Test
    void aRequestWhoseHandlerThrowsIsRejectedAndGivesItsSlotBack() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        List<CmEvent> taken = new java.util.concurrent.CopyOnWriteArrayList<>();
        CmEventHandler h = (id, e) -> {
            if (e.type() != CmEventType.CONNECT_REQUEST) {
                return false;
            }
            if (requests.incrementAndGet() == 1) {
                throw new IllegalStateException("a handler bug");
            }
            taken.add(e);
            id.reject(null);
            return true;
        };
        CmId kernel = cm.createId(h, null, PortSpace.TCP);
        kernel.bind(new InetSocketAddress(LO, 0));
        kernel.listen(1);
        InetSocketAddress kat = new InetSocketAddress(LO, kernel.localPort());
        for (int i = 0; i < 3; i++) {
            try (RawPeer p = RawPeer.connect(kat)) {
                p.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
                MpaReply r = (MpaReply) p.readMpa();
                assertThat(r.reject()).as("request %d rejected (the first by the CM, then by the handler)", i)
                        .isTrue();
            }
        }
        assertThat(requests.get()).as("every request reached the handler: none was refused for the backlog")
                .isEqualTo(3);
        assertThat(taken).hasSize(2);
        kernel.destroy();
    }

    /**
     * The same one layer down, on the iw_cm API: iwcm.c destroys the id of a request whose handler returned
     * an error. A handler that throws on CONNECT_REQUEST once kept the request's slot (and its socket) for
     * good; with a backlog of 1 every later request was closed unanswered.
     */
    @Test
    void anIwCmRequestWhoseHandlerThrowsIsClosedAndGivesItsSlotBack() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        IwCmHandler h = (id, e) -> {
            if (e.type() != IwCmEventType.CONNECT_REQUEST) {
                return false;
            }
            if (requests.incrementAndGet() == 1) {
                throw new IllegalStateException("a handler bug");
            }
            e.newId().reject("later".getBytes(StandardCharsets.US_ASCII));
            return false;
        };
        IwCmId iw = cm.createIwId(Rdma.device("siw0"), h, null);
        iw.localAddress(new InetSocketAddress(LO, 0));
        iw.listen(1);
        InetSocketAddress iwAt = iw.localAddress();
        try (RawPeer first = RawPeer.connect(iwAt)) {
            first.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
            assertThat(first.expectClose(0)).as("the failed request's connection is released").isIn("FIN", "RST");
        }
        for (int i = 0; i < 2; i++) {
            try (RawPeer p = RawPeer.connect(iwAt)) {
                p.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
                MpaReply r = (MpaReply) p.readMpa();
                assertThat(r.reject()).as("request %d reached the handler", i + 2).isTrue();
                assertThat(r.privateData()).asString(StandardCharsets.US_ASCII).isEqualTo("later");
            }
        }
        assertThat(requests.get()).isEqualTo(3);
        iw.destroy();
    }

    /**
     * A peer that sends its request and resets before the application answers: the accept fails with an
     * {@link RdmaException} (never another exception on the application's thread), the QP goes to ERROR with
     * its receives flushed, no event follows (SPEC rule 8), and the slot is free again.
     */
    @Test
    void aPeerThatVanishesAfterItsRequestFailsTheAcceptWithRdmaExceptionAndFreesItsSlot() throws Exception {
        for (int i = 0; i < BACKLOG + 1; i++) {
            RawPeer p = raw();
            p.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
            CmEvent req = next(server, CmEventType.CONNECT_REQUEST);
            CompletionQueue cq = withQp(req.id(), 2);
            p.reset();
            awaitConnectionGone(p);
            assertThatThrownBy(() -> req.id().accept(ConnParam.defaults())).isInstanceOfSatisfying(
                    RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNRESET));
            Await.state(req.id().qp(), QpState.ERR);
            assertThat(Await.completions(cq, 2)).extracting(Completion::status)
                    .containsOnly(WcStatus.WR_FLUSH_ERR);
            noEvent(server, Duration.ofMillis(100));
            req.id().destroyQp();
            req.id().destroy();
        }
        assertServes();
    }

    /**
     * Connections that never finish their request (silent, a few bytes, a header without its private data)
     * take no slot: the listener serves normal clients while they are open and after siw's responder
     * timeout has closed them all.
     */
    @Test
    void halfOpenRequestsTakeNoSlotAndAreClosedAtTheResponderTimeout() throws Exception {
        byte[] withPd = MpaRequest.v2(false, 1, 1, new byte[40]).toBytes();
        List<Socket> half = new ArrayList<>();
        try {
            for (int i = 0; i < 60; i++) {
                Socket s = new Socket();
                half.add(s);
                s.connect(at, 5_000);
                s.setSoTimeout(15_000);
                OutputStream o = s.getOutputStream();
                switch (i % 3) {
                    case 0 -> { } // silent
                    case 1 -> o.write(withPd, 0, 7); // part of the key
                    default -> o.write(withPd, 0, MpaFrame.HEADER_LENGTH + 10); // header, not all its data
                }
            }
            assertServes();
            for (Socket s : half) {
                assertThat(s.getInputStream().read()).as("closed by jrdma (FIN) at the responder timeout")
                        .isEqualTo(-1);
            }
        } finally {
            for (Socket s : half) {
                s.close();
            }
        }
        noEvent(server, Duration.ofMillis(100));
        assertServes();
    }

    // ================================================================================== identity reuse

    /**
     * Two clients in a row from one address and port (a client that reconnects from the port it bound):
     * both are served, whichever side closed first. iWARP keeps no identity beyond the TCP connection.
     */
    @Test
    void clientsReconnectingFromTheSameAddressAndPortAreServedEachTime() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, LO)) {
            port = probe.getLocalPort();
        }
        InetSocketAddress from = new InetSocketAddress(LO, port);
        for (int i = 0; i < 4; i++) {
            assertThat(serve(from, i % 2 == 0)).as("connection %d from port %d", i, port).isEqualTo(port);
        }
        // A raw peer that reconnects from its port after jrdma rejected it and closed first.
        int rawPort;
        try (ServerSocket probe = new ServerSocket(0, 1, LO)) {
            rawPort = probe.getLocalPort();
        }
        for (int i = 0; i < 2; i++) {
            Socket s = new Socket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(LO, rawPort));
            s.connect(at, 5_000);
            s.setSoTimeout(5_000);
            try (s) {
                s.getOutputStream().write(MpaRequest.v2(false, 1, 1, new byte[0]).toBytes());
                CmEvent req = next(server, CmEventType.CONNECT_REQUEST);
                assertThat(req.id().peerPort()).isEqualTo(rawPort);
                req.id().reject(null);
                byte[] reply = s.getInputStream().readNBytes(MpaFrame.HEADER_LENGTH + MpaV2Ctrl.LENGTH);
                assertThat(reply[MpaFrame.FLAGS_OFFSET] & MpaFrame.FLAG_REJECT).isNotZero();
                assertThat(s.getInputStream().read()).as("jrdma closes first").isEqualTo(-1);
                req.id().destroy();
            }
        }
        assertServes();
    }
}
