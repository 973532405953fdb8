package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrdma.cm.IwConnParam;
import io.jrdma.siw.SiwConfig;
import io.jrdma.siw.SiwDevice;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaReply;
import io.jrdma.siw.wire.MpaRequest;
import io.jrdma.siw.wire.MpaV2Ctrl;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.TermError;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateHeader;
import io.jrdma.spi.IwCmProvider;
import io.jrdma.testkit.Await;
import io.jrdma.testkit.CanaryBuffer;
import io.jrdma.testkit.Completion;
import io.jrdma.testkit.DataPattern;
import io.jrdma.testkit.Hygiene;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hostile-peer suite on siw (issue 6, item 1): a {@link RawPeer} speaking MPA/DDP/RDMAP bytes over
 * TCP on 127.0.0.1 tries each attack of the list, one test each, against a jrdma responder (and, where
 * the attack is the peer's answer, a jrdma initiator). For every case the test checks
 * <ul>
 *   <li>the protocol's answer: the TERMINATE with its layer, type and code as Linux siw sends it, the
 *       MPA reject, or the close (FIN or RST) without a reply;</li>
 *   <li>the local state: the QP in ERROR, the async event, every posted receive completed exactly once
 *       (flushed, or with the error the message caused), the iw_cm close upcall;</li>
 *   <li>memory: every registered region sits between canaries ({@link CanaryBuffer}); not one byte
 *       outside the targeted range changes — nothing at all for a refused access;</li>
 *   <li>hygiene ({@link Hygiene}): no exception reached an uncaught-exception handler, nothing was logged
 *       at WARNING or above, and no thread, socket, QP or direct buffer outlived the test.</li>
 * </ul>
 * The TERMINATE layouts themselves are pinned by {@link TerminateIT}; this suite adds the invariants.
 */
class HostilePeerIT {
    private static final SiwConfig SIW = SiwConfig.defaults();
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final SiwConfig QUICK = SIW.withTimeouts(SHORT, SHORT);
    private static final int SIZE = 8192;

    @RegisterExtension
    final Hygiene hygiene = new Hygiene();
    private final Testbed tb = new Testbed();
    private final List<CanaryBuffer> regions = new ArrayList<>();
    private final List<AutoCloseable> peers = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable p : peers) {
            p.close();
        }
        tb.close();
        for (CanaryBuffer r : regions) {
            r.close();
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** A region of {@link #SIZE} bytes between canaries, filled with a pattern, registered with {@code access}. */
    private CanaryBuffer region(int access) {
        return region(tb.pd, access);
    }

    private CanaryBuffer region(ProtectionDomain pd, int access) {
        CanaryBuffer b = CanaryBuffer.register(pd, SIZE, access, regions.size() + 1);
        regions.add(b);
        return b;
    }

    /** Snapshots of every region, to prove afterwards that (almost) nothing changed. */
    private final class Memory {
        private final List<byte[]> before = new ArrayList<>();

        Memory() {
            for (CanaryBuffer r : regions) {
                before.add(r.snapshot());
            }
        }

        /** No region changed, guards included. */
        void assertUntouched() {
            for (int i = 0; i < before.size(); i++) {
                regions.get(i).assertUnchanged(before.get(i));
            }
        }

        /** Only {@code [off, off+len)} of {@code target} changed; every other region is untouched. */
        void assertOnly(CanaryBuffer target, long off, long len) {
            for (int i = 0; i < before.size(); i++) {
                CanaryBuffer r = regions.get(i);
                if (r == target) {
                    r.assertOnlyChanged(before.get(i), off, len);
                } else {
                    r.assertUnchanged(before.get(i));
                }
            }
        }
    }

    private Links.Accepted connected() {
        return connected(SIW, false);
    }

    private Links.Accepted connected(SiwConfig config, boolean crc) {
        Links.Accepted a = Links.accept(tb, config, MpaRequest.v2(crc, 2, 2, new byte[0]), Testbed.param(2, 2));
        a.up().next("established");
        return a;
    }

    private static byte[] pattern(int len) {
        return DataPattern.bytes(0x5EED, len);
    }

    /** Posts {@code n} receives into {@code into}, 64 bytes each from offset 0. */
    private static void receives(Links.Accepted a, CanaryBuffer into, int n) {
        for (int i = 0; i < n; i++) {
            if (a.qp().postRecv(new io.jrdma.verbs.RecvWr().wrId(100 + i).sg(into.mr(), 64L * i, 64)) != 1) {
                throw new AssertionError("receive not posted");
            }
        }
    }

    /**
     * Sends {@code fpdu}, reads the TERMINATE it draws and checks the local aftermath: the error, the close,
     * the QP in ERROR, the async event, the iw_cm close upcall with ECONNRESET.
     */
    private Terminate drawTerminate(Links.Accepted a, byte[] fpdu, TermError want, AsyncEventType event) {
        a.peer().write(fpdu);
        Terminate t = a.peer().readTerminate();
        assertThat(t.error()).as("TERMINATE error").contains(want);
        assertThat(a.peer().expectClose(0)).as("jrdma closes after its TERMINATE").isIn("FIN", "RST");
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.event(event).qp().qpNum()).isEqualTo(a.qp().qpNum());
        assertThat(a.up().next("close").status()).isEqualTo(Errno.ECONNRESET.status());
        return t;
    }

    /** The CQ holds exactly {@code statuses}, in order, and nothing more arrives (no duplicate). */
    private void assertCompletions(WcStatus... statuses) {
        List<Completion> got = Await.completions(tb.cq, statuses.length);
        assertThat(got).extracting(Completion::status).containsExactly(statuses);
        Await.noCompletion(tb.cq, Duration.ofMillis(100));
    }

    /** A listener of {@code cm} and a raw peer connected to it. */
    private record Listening(IwCmProvider.Listener listener, Upcalls up, RawPeer peer) {
    }

    private Listening rawToListener(SiwConfig config) {
        SiwCm cm = tb.cm(config);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = tb.listen(cm, up);
        RawPeer p = RawPeer.connect(l.localAddress());
        peers.add(p);
        return new Listening(l, up, p);
    }

    /**
     * A good connection still gets through the listener (it was not wedged by what came before), and its
     * request is the next upcall: what came before it raised none.
     */
    private void listenerStillServes(Listening l) {
        RawPeer good = RawPeer.connect(l.listener().localAddress());
        peers.add(good);
        good.sendMpa(MpaRequest.v2(false, 1, 1, Upcalls.marker()));
        Upcalls.Up req = l.up().nextRequest(Upcalls.marker());
        req.conn().reject(new byte[0]);
        MpaReply r = (MpaReply) good.readMpa();
        assertThat(r.reject()).isTrue();
    }

    // ================================================================================== MPA

    @Test
    void aWrongMpaKeyInARequestGetsNoReplyAndNoUpcall() {
        Listening l = rawToListener(SIW);
        byte[] bad = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
        System.arraycopy("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII), 0, bad, 0, MpaFrame.KEY_LENGTH);
        l.peer().write(bad);
        assertThat(l.peer().expectClose(0)).as("siw_proc_mpareq: dropped, FIN").isEqualTo("FIN");
        listenerStillServes(l);
    }

    @Test
    void aWrongMpaKeyInAReplyDrawsTerminateAndFailsTheConnect() throws Exception {
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            byte[] bad = new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]).toBytes();
            bad[0] ^= 0x20;
            c.peer().write(bad);
            assertThat(c.up().next("connectReply").status()).isEqualTo(Errno.EINVAL.status());
            assertThat(c.peer().readTerminate().error()).contains(TermError.MPA_INVALID_REQUEST_REPLY);
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
            assertThat(c.qp().state()).as("the QP never reached RTS").isNotEqualTo(QpState.RTS);
        }
    }

    @Test
    void anOversizedPdLengthIsRefusedBeforeAnyPrivateDataIsRead() {
        Listening l = rawToListener(SIW);
        byte[] req = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
        // PD_Length 0xFFFF (the largest the 16-bit field holds; siw allows 256), followed by some of it.
        req[18] = (byte) 0xFF;
        req[19] = (byte) 0xFF;
        byte[] all = new byte[req.length + 1000];
        System.arraycopy(req, 0, all, 0, req.length);
        l.peer().write(all);
        assertThat(l.peer().expectClose(0)).as("closed with the rest unread").isIn("FIN", "RST");
        listenerStillServes(l);
    }

    @Test
    void privateDataOverTheLimitIsRefusedOnTheWireAndAtTheApi() {
        Listening l = rawToListener(SIW);
        byte[] head = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
        head[18] = 0x01; // PD_Length 257: one byte over Linux's MPA_MAX_PRIVDATA
        head[19] = 0x01;
        byte[] all = new byte[MpaFrame.HEADER_LENGTH + 257];
        System.arraycopy(head, 0, all, 0, MpaFrame.HEADER_LENGTH + 4);
        l.peer().write(all);
        assertThat(l.peer().expectClose(0)).isIn("FIN", "RST");
        listenerStillServes(l);
        // An application cannot send more than 252 bytes beside the v2 block either.
        IwConnParam tooMuch = new IwConnParam(new byte[253], 1, 1, 0);
        ServerSocketHolder s = new ServerSocketHolder();
        assertThatThrownBy(() -> tb.connect(tb.cm(SIW), tb.qp(), s.server, tooMuch, new Upcalls()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("private data");
        s.close();
    }

    /**
     * siw_proc_mpareq: a revision 2 request with H whose PD_Length (0 to 3) leaves no room for the v2 block
     * gets a reject, not just a close: the request's header echoed with the reply key, R set, PD_Length 0
     * ({@code reject_conn}). jrdma's initiator reads that reject as one (siw_proc_mpareply looks at R before
     * the block).
     */
    @Test
    void anHBitWithoutRoomForTheV2BlockGetsARejectReplyAndSuchARejectFailsAConnectAsARejection()
            throws Exception {
        for (int pd = 0; pd < MpaV2Ctrl.LENGTH; pd++) {
            Listening l = rawToListener(SIW);
            l.peer().write(CmHostilePeerIT.shortEnhanced(pd));
            CmHostilePeerIT.assertRejectOfShortEnhanced(l.peer().read(MpaFrame.HEADER_LENGTH));
            assertThat(l.peer().expectClose(0)).as("PD_Length " + pd).isEqualTo("FIN");
            listenerStillServes(l);
        }
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            byte[] head = java.util.Arrays.copyOf(c.requestBytes(), MpaFrame.HEADER_LENGTH);
            c.peer().write(MpaReply.refusingHeader(head));
            assertThat(c.up().next("connectReply").status()).as("a rejection").isEqualTo(Errno.ECONNREFUSED.status());
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    /**
     * The initiator sends nothing behind its request before the reply: siw_recv_mpa_rr drops a connection
     * whose request came with more bytes ("peer sent extra data"). No reply, no upcall; the listener still
     * serves. Bytes after the request that arrive later are the QP's to judge, once it has the socket.
     */
    @Test
    void bytesBehindARequestBeforeTheReplyDropTheConnectionWithoutAnUpcall() {
        for (int extra : new int[] {1, 4, 100}) {
            Listening l = rawToListener(SIW);
            byte[] req = MpaRequest.v2(false, 1, 1, new byte[] {7, 7}).toBytes();
            l.peer().write(java.util.Arrays.copyOf(req, req.length + extra));
            assertThat(l.peer().expectClose(0)).as(extra + " bytes behind the request").isIn("FIN", "RST");
            listenerStillServes(l);
        }
    }

    /**
     * Every numeric field of the MPA request within its 14 or 16 bits reaches iw_cm within siw's own ranges:
     * IRD/ORD above siw's 128 are capped when the request is read, as siw_proc_mpareq caps them; the flags
     * siw does not use (reserved bits, R in a request) change nothing; PD_Length at and around its limits.
     */
    @Test
    void mpaRequestFieldsAtTheirExtremesReachIwCmWithinSiwsRanges() {
        int[] depths = {0, 1, 127, 128, 129, 255, 256, 0x3FFF};
        for (int ird : depths) {
            Listening l = rawToListener(SIW);
            int ord = depths[(java.util.Arrays.binarySearch(depths, ird) + 3) % depths.length];
            l.peer().sendMpa(MpaRequest.v2(false, ird, ord, new byte[0]));
            Upcalls.Up req = l.up().next("connectRequest");
            assertThat(req.ird()).as("IRD " + ird).isEqualTo(Math.min(ird, SiwDevice.MAX_ORD_IRD));
            assertThat(req.ord()).as("ORD " + ord).isEqualTo(Math.min(ord, SiwDevice.MAX_ORD_IRD));
            req.conn().reject(new byte[0]);
            assertThat(((MpaReply) l.peer().readMpa()).reject()).isTrue();
        }
        // Reserved flag bits and R in a request are ignored (siw ignores them too), P/S/W/R of the block
        // with every depth bit set.
        Listening l = rawToListener(SIW);
        byte[] odd = new MpaRequest(2, false, false, Optional.of(new MpaV2Ctrl(0x3FFF, 0x3FFF, false, true, true,
                true)), new byte[0]).toBytes();
        odd[MpaFrame.FLAGS_OFFSET] |= (byte) (MpaFrame.FLAG_REJECT | MpaFrame.MASK_RESERVED);
        l.peer().write(odd);
        Upcalls.Up req = l.up().next("connectRequest");
        assertThat(req.ird()).isEqualTo(SiwDevice.MAX_ORD_IRD);
        req.conn().reject(new byte[0]);
        assertThat(((MpaReply) l.peer().readMpa()).reject()).isTrue();
        // PD_Length: 0, 4 (the block alone), 255, 256 (the limit) are taken; 257 and 0xFFFF are not.
        for (int pdLength : new int[] {0, 4, 255, 256}) {
            Listening m = rawToListener(SIW);
            boolean v2 = pdLength >= MpaV2Ctrl.LENGTH;
            byte[] pd = new byte[pdLength - (v2 ? MpaV2Ctrl.LENGTH : 0)];
            m.peer().sendMpa(new MpaRequest(v2 ? 2 : 1, false, false, v2 ? Optional.of(MpaV2Ctrl.of(1, 1))
                    : Optional.empty(), pd));
            Upcalls.Up r = m.up().next("connectRequest");
            assertThat(r.privateData()).as("PD_Length " + pdLength).hasSize(pd.length);
            r.conn().reject(new byte[0]);
            assertThat(((MpaReply) m.peer().readMpa()).reject()).isTrue();
        }
        for (int pdLength : new int[] {257, 0xFFFF}) {
            Listening m = rawToListener(SIW);
            byte[] head = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
            head[MpaFrame.PD_LENGTH_OFFSET] = (byte) (pdLength >> 8);
            head[MpaFrame.PD_LENGTH_OFFSET + 1] = (byte) pdLength;
            m.peer().write(java.util.Arrays.copyOf(head, MpaFrame.HEADER_LENGTH + 300));
            assertThat(m.peer().expectClose(0)).as("PD_Length " + pdLength).isIn("FIN", "RST");
            listenerStillServes(m);
        }
    }

    /**
     * Every numeric field of the MPA reply at its extremes: an IRD up to 16383 bounds nothing more than this
     * side's ORD and is reported capped; an ORD above 128 is "insufficient IRD"; PD_Length at its limit.
     */
    @Test
    void mpaReplyFieldsAtTheirExtremesEndTheConnectWithinSiwsRanges() throws Exception {
        for (int ird : new int[] {0, 128, 129, 0x3FFF}) {
            try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(4, 4))) {
                Upcalls.Up u = c.answer(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(ird, 128)),
                        new byte[252]));
                Links.assertStatus(u, 0);
                assertThat(u.ird()).as("IRD " + ird).isEqualTo(Math.min(ird, SiwDevice.MAX_ORD_IRD));
                assertThat(u.privateData()).hasSize(252);
                assertThat(c.qp().query().maxRdAtomic()).as("our ORD within the responder's IRD " + ird)
                        .isEqualTo(Math.min(4, ird));
            }
        }
        for (int ord : new int[] {129, 0x3FFF}) {
            try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(4, 4))) {
                Upcalls.Up u = c.answer(new MpaReply(2, false, false, false, Optional.of(MpaV2Ctrl.of(1, ord)),
                        new byte[0]));
                Links.assertStatus(u, Errno.EINVAL.status());
                assertThat(c.peer().readTerminate().error()).contains(TermError.MPA_INSUFFICIENT_IRD);
            }
        }
    }

    /** A listening socket nobody accepts on (for connects refused before the TCP connect). */
    private static final class ServerSocketHolder implements AutoCloseable {
        final java.net.ServerSocket server = RawPeer.listen();

        @Override
        public void close() {
            try {
                server.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    @Test
    void aRequestWithMarkersGetsARejectReplyAndAReplyWithMarkersFailsTheConnect() throws Exception {
        Listening l = rawToListener(SIW);
        l.peer().sendMpa(new MpaRequest(2, true, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
        MpaReply r = (MpaReply) l.peer().readMpa();
        assertThat(r.reject()).isTrue();
        assertThat(r.markers()).as("M cleared in the reject").isFalse();
        assertThat(l.peer().expectClose(0)).isEqualTo("FIN");
        listenerStillServes(l);
        try (Links.Connecting c = Links.connect(tb, SIW, Testbed.param(1, 1))) {
            c.peer().sendMpa(new MpaReply(2, true, false, false, Optional.of(MpaV2Ctrl.of(1, 1)), new byte[0]));
            assertThat(c.up().next("connectReply").status()).isEqualTo(Errno.ECONNRESET.status());
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    @Test
    void aHalfOpenConnectionThatNeverSendsItsRequestIsClosedAtTheResponderTimeout() {
        Listening l = rawToListener(QUICK);
        long t0 = System.nanoTime();
        assertThat(l.peer().expectClose(0)).as("siw releases the socket: FIN").isEqualTo("FIN");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ms).as("closed at the 300 ms responder timeout").isBetween(200L, 3_000L);
        listenerStillServes(l);
    }

    @Test
    void anMpaHandshakeThatNeverFinishesTimesOutOnBothSides() throws Exception {
        // Responder: ten bytes of a request, then nothing.
        Listening l = rawToListener(QUICK);
        l.peer().write(java.util.Arrays.copyOf(MpaRequest.v2(false, 1, 1, new byte[0]).toBytes(), 10));
        assertThat(l.peer().expectClose(0)).isEqualTo("FIN");
        listenerStillServes(l);
        // Initiator: the peer reads the request and never replies.
        try (Links.Connecting c = Links.connect(tb, QUICK, Testbed.param(1, 1))) {
            long t0 = System.nanoTime();
            assertThat(c.up().next("connectReply", 3_000).status()).isEqualTo(Errno.ETIMEDOUT.status());
            assertThat((System.nanoTime() - t0) / 1_000_000).as("at the 300 ms initiator timeout")
                    .isLessThan(3_000L);
            assertThat(c.peer().expectClose(0)).isEqualTo("FIN");
        }
    }

    @Test
    void aFloodOfConnectionRequestsIsAbsorbedAndALegitimatePeerStillConnects() throws Exception {
        SiwCm cm = tb.cm(QUICK);
        Upcalls up = new Upcalls();
        IwCmProvider.Listener l = cm.listen(new InetSocketAddress("127.0.0.1", 0), 1024, up);
        try {
            InetSocketAddress at = l.localAddress();
            int n = 300;
            SplittableRandom rnd = new SplittableRandom(6);
            List<Socket> flood = new ArrayList<>();
            byte[] valid = MpaRequest.v2(false, 1, 1, new byte[0]).toBytes();
            for (int i = 0; i < n; i++) {
                Socket s = new Socket();
                s.connect(at, 5_000);
                s.setSoTimeout(5_000);
                OutputStream o = s.getOutputStream();
                switch (i % 4) {
                    case 0 -> { } // silent
                    case 1 -> { // garbage
                        byte[] g = new byte[64];
                        rnd.nextBytes(g);
                        o.write(g);
                    }
                    case 2 -> o.write(valid, 0, 7); // a started request
                    default -> o.write(valid); // a complete request the application never answers
                }
                flood.add(s);
            }
            // In the middle of the flood, a legitimate peer is served at once.
            RawPeer good = RawPeer.connect(at);
            peers.add(good);
            good.sendMpa(MpaRequest.v2(false, 1, 1, new byte[0]));
            List<Upcalls.Up> requests = new ArrayList<>();
            Upcalls.Up mine = null;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (mine == null && System.nanoTime() < deadline) {
                Upcalls.Up u = up.next("connectRequest", 5_000);
                if (u.conn().remoteAddress().getPort() == good.socket().getLocalPort()) {
                    mine = u;
                } else {
                    requests.add(u);
                }
            }
            assertThat(mine).as("the legitimate request").isNotNull();
            Upcalls mineUp = new Upcalls();
            mine.conn().setUpcalls(mineUp);
            mine.conn().accept(tb.qp(), Testbed.param(1, 1));
            assertThat(((MpaReply) good.readMpa()).reject()).isFalse();
            mineUp.next("established");
            // Every flooding socket is closed by jrdma (invalid ones at once, silent and partial ones at the
            // responder timeout); complete requests wait for the application, which rejects them.
            while (requests.size() < n / 4) {
                requests.add(up.next("connectRequest", 5_000));
            }
            for (Upcalls.Up u : requests) {
                u.conn().reject(new byte[0]);
            }
            int closed = 0;
            for (Socket s : flood) {
                if (drainToClose(s)) {
                    closed++;
                }
                s.close();
            }
            assertThat(closed).as("flooding connections closed by jrdma").isEqualTo(n);
        } finally {
            l.close();
        }
    }

    /** Reads until EOF or reset; returns whether the peer closed within the socket timeout. */
    private static boolean drainToClose(Socket s) {
        try {
            InputStream in = s.getInputStream();
            byte[] b = new byte[512];
            while (in.read(b) >= 0) {
                // an MPA reject reply, then the close
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset
        } catch (IOException e) {
            return false;
        }
    }

    // ================================================================================== FPDU framing

    @Test
    void aBadCrcWhenCrcIsOnDrawsTerminateAndPlacesNothingOutsideTheTarget() {
        CanaryBuffer target = region(Testbed.ALL);
        CanaryBuffer other = region(Testbed.ALL);
        Memory m = new Memory();
        Links.Accepted a = connected(SIW, true);
        RawPeer p = a.peer().crc(true);
        long crcErrors = tb.siw.counters().crcErrors();
        byte[] w = p.write(target.mr().rkey(), target.addr(1000), pattern(100), true);
        w[w.length - 1] ^= 0x01;
        drawTerminate(a, w, TermError.MPA_CRC_ERROR, AsyncEventType.QP_FATAL);
        assertThat(tb.siw.counters().crcErrors()).isEqualTo(crcErrors + 1);
        // The payload precedes its CRC on the wire: it may have been placed, but only where it was sent.
        m.assertOnly(target, 1000, 100);
        assertThat(other).isNotNull();
    }

    /**
     * A payload of {@link SIZE} bytes whose header arrives first is read from the socket straight into
     * the region (no staging); its CRC is computed over the placed bytes and still checked.
     */
    @Test
    void aBadCrcOnAPayloadReadStraightIntoTheRegionDrawsTerminateAndPlacesOnlyInsideTheTarget() {
        CanaryBuffer target = region(Testbed.ALL);
        CanaryBuffer other = region(Testbed.ALL);
        Memory m = new Memory();
        Links.Accepted a = connected(SIW, true);
        RawPeer p = a.peer().crc(true);
        long crcErrors = tb.siw.counters().crcErrors();
        byte[] w = p.write(target.mr().rkey(), target.addr(0), pattern(SIZE), true);
        w[w.length - 2] ^= 0x10;
        p.writeSplit(w, FpduHeader.TAGGED_LENGTH, 50_000_000L); // the header alone, then payload and trailer
        Terminate t = p.readTerminate();
        assertThat(t.error()).contains(TermError.MPA_CRC_ERROR);
        assertThat(p.expectClose(0)).isIn("FIN", "RST");
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.siw.counters().crcErrors()).isEqualTo(crcErrors + 1);
        m.assertOnly(target, 0, SIZE);
        assertThat(other).isNotNull();
    }

    @Test
    void aTruncatedFpduEndsTheConnectionWithoutCompletingTheReceive() {
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        receives(a, rq, 2);
        byte[] s = a.peer().send(pattern(60));
        a.peer().write(java.util.Arrays.copyOf(s, 40)); // the header and 20 of 60 bytes
        a.peer().shutdownOutput();
        a.up().next("disconnect");
        assertThat(a.up().next("close").status()).isZero();
        Await.state(a.qp(), QpState.ERR);
        assertCompletions(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        m.assertOnly(rq, 0, 64);
        assertThat(a.peer().expectClose(0)).isEqualTo("FIN");
    }

    @Test
    void anFpduLengthShorterThanItsHeaderDrawsTerminateFpduStartError() {
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        receives(a, rq, 1);
        byte[] s = a.peer().send(pattern(8));
        s[0] = 0; // ULPDU_Length 2: less than the 18 bytes of an untagged header
        s[1] = 2;
        drawTerminate(a, s, TermError.MPA_MARKER_MISMATCH, AsyncEventType.QP_FATAL);
        assertCompletions(WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
    }

    @Test
    void anFpduAboveThisSidesSegmentSizeUpToTheWireMaximumIsAcceptedAsSiwDoes() {
        // MPA negotiates no FPDU size (RFC 5044): the receiver takes any ULPDU_Length the 16 bits hold.
        CanaryBuffer target = region(Testbed.ALL);
        CanaryBuffer big = CanaryBuffer.register(tb.pd, 70_000, Testbed.ALL, 77);
        regions.add(big);
        Memory m = new Memory();
        Links.Accepted a = connected();
        int max = FpduHeader.MAX_MPA_LENGTH - (FpduHeader.TAGGED_LENGTH - FpduHeader.MPA_LENGTH_FIELD_LENGTH);
        byte[] payload = pattern(max);
        a.peer().write(a.peer().write(big.mr().rkey(), big.addr(100), payload, true));
        // A SEND of the largest FPDU into a receive too small for it is refused as a length error.
        receives(a, target, 1);
        drawTerminate(a, a.peer().send(pattern(max - 4)), TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER,
                AsyncEventType.QP_FATAL);
        assertCompletions(WcStatus.LOC_LEN_ERR);
        assertThat(DataPattern.matches(big.body(), 100, max, 0x5EED)).as("the 65521-byte WRITE placed").isTrue();
        m.assertOnly(big, 100, max);
    }

    @Test
    void anOversizedSendIsLocLenErrAndPlacesNothingBeyondTheReceive() {
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        receives(a, rq, 2);
        drawTerminate(a, a.peer().send(pattern(65)), TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER,
                AsyncEventType.QP_FATAL);
        assertCompletions(WcStatus.LOC_LEN_ERR, WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
    }

    @Test
    void everyUnknownOpcodeDrawsTerminateUnexpectedOpcode() {
        CanaryBuffer rw = region(Testbed.ALL);
        Memory m = new Memory();
        for (int op = 8; op <= 15; op++) {
            Links.Accepted a = connected();
            byte[] f = a.peer().write(rw.mr().rkey(), rw.addr(0), pattern(16), true);
            f[3] = (byte) ((f[3] & 0xF0) | op);
            Terminate t = drawTerminate(a, f, TermError.RDMAP_UNEXPECTED_OPCODE, AsyncEventType.QP_FATAL);
            assertThat(t.d()).as("nothing copied for opcode " + op).isFalse();
        }
        m.assertUntouched();
    }

    @Test
    void wrongDdpAndRdmapVersionsDrawTerminateAtTheirLayers() {
        CanaryBuffer rw = region(Testbed.ALL);
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        for (int v : new int[] {0, 2, 3}) {
            Links.Accepted a = connected();
            byte[] w = a.peer().write(rw.mr().rkey(), rw.addr(0), pattern(16), true);
            w[2] = (byte) ((w[2] & ~0x03) | v);
            drawTerminate(a, w, TermError.DDP_TAGGED_INVALID_VERSION, AsyncEventType.QP_FATAL);
            Links.Accepted b = connected();
            receives(b, rq, 1);
            byte[] s = b.peer().send(pattern(16));
            s[2] = (byte) ((s[2] & ~0x03) | v);
            drawTerminate(b, s, TermError.DDP_UNTAGGED_INVALID_VERSION, AsyncEventType.QP_FATAL);
            Links.Accepted c = connected();
            byte[] r = c.peer().write(rw.mr().rkey(), rw.addr(0), pattern(16), true);
            r[3] = (byte) ((r[3] & 0x3F) | v << 6);
            drawTerminate(c, r, TermError.RDMAP_INVALID_VERSION, AsyncEventType.QP_FATAL);
        }
        assertCompletions(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
    }

    // ================================================================================== STags

    @Test
    void aWriteAndAReadOfAnUnknownStagAreInvalidStag() {
        CanaryBuffer rw = region(Testbed.ALL);
        Memory m = new Memory();
        int unknown = 0x00FEED01; // an index far above any registered here
        Links.Accepted a = connected();
        drawTerminate(a, a.peer().write(unknown, rw.addr(0), pattern(32), true), TermError.DDP_TAGGED_INVALID_STAG,
                AsyncEventType.QP_ACCESS_ERR);
        Links.Accepted b = connected();
        drawTerminate(b, b.peer().readRequest(1, 0, 32, unknown, rw.addr(0)), TermError.RDMAP_INVALID_STAG,
                AsyncEventType.QP_REQ_ERR);
        m.assertUntouched();
    }

    @Test
    void anStagOfAnotherPdIsNotAssociatedForWritesAndReads() {
        ProtectionDomain pd2 = tb.ctx.allocPd();
        CanaryBuffer foreign = region(pd2, Testbed.ALL);
        CanaryBuffer own = region(Testbed.ALL);
        Memory m = new Memory();
        Links.Accepted a = connected();
        drawTerminate(a, a.peer().write(foreign.mr().rkey(), foreign.addr(0), pattern(32), true),
                TermError.DDP_TAGGED_STAG_NOT_ASSOCIATED, AsyncEventType.QP_ACCESS_ERR);
        Links.Accepted b = connected();
        drawTerminate(b, b.peer().readRequest(1, 0, 32, foreign.mr().rkey(), foreign.addr(0)),
                TermError.RDMAP_STAG_NOT_ASSOCIATED, AsyncEventType.QP_REQ_ERR);
        m.assertUntouched();
        assertThat(own).isNotNull();
        foreign.mr().close();
        pd2.close();
    }

    @Test
    void aDeregisteredStagIsInvalid() {
        CanaryBuffer gone = region(Testbed.ALL);
        CanaryBuffer rw = region(Testbed.ALL);
        Memory m = new Memory();
        int rkey = gone.mr().rkey();
        gone.mr().close();
        CanaryBuffer reused = region(Testbed.ALL); // may take the freed index, never the old key
        assertThat(reused.mr().rkey()).isNotEqualTo(rkey);
        Memory m2 = new Memory();
        Links.Accepted a = connected();
        drawTerminate(a, a.peer().write(rkey, gone.addr(0), pattern(32), true), TermError.DDP_TAGGED_INVALID_STAG,
                AsyncEventType.QP_ACCESS_ERR);
        Links.Accepted b = connected();
        drawTerminate(b, b.peer().readRequest(1, 0, 32, rkey, gone.addr(0)), TermError.RDMAP_INVALID_STAG,
                AsyncEventType.QP_REQ_ERR);
        m.assertUntouched();
        m2.assertUntouched();
        assertThat(rw).isNotNull();
    }

    @Test
    void anStagInvalidatedByTheSendWithInvalidateIsRefusedAfterwards() {
        CanaryBuffer victim = region(Testbed.ALL);
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Links.Accepted a = connected();
        receives(a, rq, 2);
        MemoryRegion mr = victim.mr();
        a.peer().write(a.peer().sendSegment(RdmapOpcode.SEND_INVALIDATE, 0, pattern(8), true, mr.rkey()));
        Completion inv = tb.completion();
        assertThat(inv.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(inv.wcFlags() & WcFlags.WITH_INV).isNotZero();
        assertThat(mr.isValid()).isFalse();
        Memory m = new Memory();
        drawTerminate(a, a.peer().write(mr.rkey(), victim.addr(0), pattern(32), true),
                TermError.DDP_TAGGED_INVALID_STAG, AsyncEventType.QP_ACCESS_ERR);
        assertCompletions(WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
    }

    @Test
    void offsetPlusLengthBeyondTheRegionIsBaseOrBoundsAndNothingIsPlaced() {
        CanaryBuffer rw = region(Testbed.ALL);
        Memory m = new Memory();
        Links.Accepted a = connected();
        // 8 bytes inside, 8 beyond: not even the first 8 are placed.
        drawTerminate(a, a.peer().write(rw.mr().rkey(), rw.addr(SIZE - 8), pattern(16), true),
                TermError.DDP_TAGGED_BASE_BOUNDS, AsyncEventType.QP_ACCESS_ERR);
        Links.Accepted b = connected();
        drawTerminate(b, b.peer().readRequest(1, 0, 16, rw.mr().rkey(), rw.addr(SIZE - 8)),
                TermError.RDMAP_BASE_BOUNDS, AsyncEventType.QP_REQ_ERR);
        // A tagged offset before the region, one that wraps around, a READ of a "negative" size.
        Links.Accepted c = connected();
        drawTerminate(c, c.peer().write(rw.mr().rkey(), rw.addr(0) - 4, pattern(16), true),
                TermError.DDP_TAGGED_BASE_BOUNDS, AsyncEventType.QP_ACCESS_ERR);
        Links.Accepted d = connected();
        drawTerminate(d, d.peer().write(rw.mr().rkey(), -8L, pattern(16), true), TermError.DDP_TAGGED_BASE_BOUNDS,
                AsyncEventType.QP_ACCESS_ERR);
        Links.Accepted e = connected();
        drawTerminate(e, e.peer().readRequest(1, 0, 0x8000_0000, rw.mr().rkey(), rw.addr(0)),
                TermError.RDMAP_BASE_BOUNDS, AsyncEventType.QP_REQ_ERR);
        m.assertUntouched();
    }

    @Test
    void aWriteToAReadOnlyRegionIsRefusedAndPlacesNothing() {
        CanaryBuffer ro = region(Access.LOCAL_WRITE | Access.REMOTE_READ);
        Memory m = new Memory();
        Links.Accepted a = connected();
        drawTerminate(a, a.peer().write(ro.mr().rkey(), ro.addr(0), pattern(64), true),
                TermError.DDP_TAGGED_INVALID_STAG, AsyncEventType.QP_ACCESS_ERR);
        m.assertUntouched();
    }

    @Test
    void aReadFromARegionWithoutRemoteReadIsAccessRightsAndSendsNoData() {
        CanaryBuffer wo = region(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        a.peer().write(a.peer().readRequest(1, 0, 64, wo.mr().rkey(), wo.addr(0)));
        RawPeer.Fpdu f = a.peer().readFpdu();
        assertThat(f.opcode()).as("a TERMINATE, not a READ response").isEqualTo(RdmapOpcode.TERMINATE);
        assertThat(a.peer().expectClose(0)).isIn("FIN", "RST");
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.event(AsyncEventType.QP_REQ_ERR).qp().qpNum()).isEqualTo(a.qp().qpNum());
        m.assertUntouched();
    }

    @Test
    void moreOutstandingReadsThanTheIrdEndTheStream() {
        CanaryBuffer rw = region(Testbed.ALL);
        Memory m = new Memory();
        Links.Accepted a = connected();
        RawPeer p = a.peer();
        byte[] r1 = p.readRequest(1, 0, SIZE, rw.mr().rkey(), rw.addr(0));
        byte[] r2 = p.readRequest(1, 0, SIZE, rw.mr().rkey(), rw.addr(0));
        byte[] r3 = p.readRequest(1, 0, SIZE, rw.mr().rkey(), rw.addr(0));
        byte[] all = new byte[r1.length * 3];
        System.arraycopy(r1, 0, all, 0, r1.length);
        System.arraycopy(r2, 0, all, r1.length, r1.length);
        System.arraycopy(r3, 0, all, 2 * r1.length, r1.length);
        p.write(all);
        RawPeer.Fpdu f;
        int responseBytes = 0;
        do {
            f = p.readFpdu();
            if (f.opcode() == RdmapOpcode.RDMA_READ_RESPONSE) {
                responseBytes += f.payload().length;
            }
        } while (f.opcode() == RdmapOpcode.RDMA_READ_RESPONSE);
        assertThat(f.opcode()).isEqualTo(RdmapOpcode.TERMINATE);
        assertThat(responseBytes).as("at most the two READs within the IRD were answered")
                .isLessThanOrEqualTo(2 * SIZE);
        Await.state(a.qp(), QpState.ERR);
        assertThat(tb.event(AsyncEventType.QP_REQ_ERR).qp().qpNum()).isEqualTo(a.qp().qpNum());
        m.assertUntouched();
    }

    // ================================================================================== untagged

    @Test
    void anOutOfOrderMsnEndsTheStreamWithoutUsingAReceive() {
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        receives(a, rq, 2);
        byte[] s = a.peer().fpdu(RdmapOpcode.SEND, true, pattern(16), (h, rr) -> h.queueNumber(0)
                .messageSequenceNumber(2).messageOffset(0));
        drawTerminate(a, s, TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL);
        assertCompletions(WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
        Links.Accepted b = connected();
        byte[] rr = b.peer().readRequest(1, 0, 0, 0, 0); // MSN 1: fine
        byte[] skip = b.peer().readRequest(1, 0, 0, 0, 0); // MSN 2 ...
        byte[] late = b.peer().readRequest(1, 0, 0, 0, 0); // ... MSN 3 sent before 2
        b.peer().write(rr);
        assertThat(b.peer().readFpdu().opcode()).isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
        drawTerminate(b, late, TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL);
        assertThat(skip).isNotNull();
    }

    @Test
    void aSendWithNoReceivePostedEndsTheStream() {
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        drawTerminate(a, a.peer().send(pattern(32)), TermError.DDP_UNTAGGED_INVALID_MSN_NO_BUFFER,
                AsyncEventType.QP_FATAL);
        Await.noCompletion(tb.cq, Duration.ofMillis(100));
        // A receive posted after the QP failed is flushed at once, exactly once.
        receives(a, rq, 1);
        assertCompletions(WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
    }

    // ================================================================================== numeric extremes

    /**
     * One DDP/RDMAP header field at a value the wire allows and no valid stream has, and the TERMINATE it
     * draws as siw sends it.
     *
     * @param what the case
     * @param fpdu builds the offending FPDU against a region with every right
     * @param want the TERMINATE error
     * @param event the async event
     */
    record Extreme(String what, BiFunction<RawPeer, CanaryBuffer, byte[]> fpdu, TermError want,
            AsyncEventType event) {
        @Override
        public String toString() {
            return what;
        }
    }

    private static byte[] send(RawPeer p, int qn, int msn, int mo) {
        return p.fpdu(RdmapOpcode.SEND, true, pattern(8), (h, rr) -> h.invalidateStag(0).queueNumber(qn)
                .messageSequenceNumber(msn).messageOffset(mo));
    }

    private static byte[] readRequest(RawPeer p, int qn, int msn, int size, int stag, long to, int payload) {
        return p.fpdu(RdmapOpcode.RDMA_READ_REQUEST, true, new byte[payload], (h, rr) -> {
            h.invalidateStag(0).queueNumber(qn).messageSequenceNumber(msn).messageOffset(0);
            rr.sinkStag(1).sinkTo(0).readSize(size).sourceStag(stag).sourceTo(to);
        });
    }

    static List<Extreme> headerExtremes() {
        return List.of(
                new Extreme("SEND on queue 0xFFFFFFFF", (p, r) -> send(p, -1, 1, 0),
                        TermError.DDP_UNTAGGED_INVALID_QN, AsyncEventType.QP_FATAL),
                new Extreme("SEND on the READ request queue", (p, r) -> send(p, RdmapOpcode.QN_READ_REQUEST, 1, 0),
                        TermError.DDP_UNTAGGED_INVALID_QN, AsyncEventType.QP_FATAL),
                new Extreme("SEND with MSN 0xFFFFFFFF", (p, r) -> send(p, 0, -1, 0),
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL),
                new Extreme("SEND with MSN 0", (p, r) -> send(p, 0, 0, 0),
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL),
                new Extreme("first SEND segment at MO 0xFFFFFFFF", (p, r) -> send(p, 0, 1, -1),
                        TermError.DDP_UNTAGGED_INVALID_MO, AsyncEventType.QP_FATAL),
                new Extreme("READ request on queue 0xFFFFFFFF",
                        (p, r) -> readRequest(p, -1, 1, 16, r.mr().rkey(), r.addr(0), 0),
                        TermError.DDP_UNTAGGED_INVALID_QN, AsyncEventType.QP_FATAL),
                new Extreme("READ request with MSN 0xFFFFFFFF",
                        (p, r) -> readRequest(p, RdmapOpcode.QN_READ_REQUEST, -1, 16, r.mr().rkey(), r.addr(0), 0),
                        TermError.DDP_UNTAGGED_INVALID_MSN_RANGE, AsyncEventType.QP_FATAL),
                new Extreme("READ request of 0xFFFFFFFF bytes",
                        (p, r) -> readRequest(p, RdmapOpcode.QN_READ_REQUEST, 1, -1, r.mr().rkey(), r.addr(0), 0),
                        TermError.RDMAP_BASE_BOUNDS, AsyncEventType.QP_REQ_ERR),
                new Extreme("READ request from STag 0xFFFFFFFF",
                        (p, r) -> readRequest(p, RdmapOpcode.QN_READ_REQUEST, 1, 16, -1, r.addr(0), 0),
                        TermError.RDMAP_INVALID_STAG, AsyncEventType.QP_REQ_ERR),
                new Extreme("READ request from offset 2^64-1",
                        (p, r) -> readRequest(p, RdmapOpcode.QN_READ_REQUEST, 1, 16, r.mr().rkey(), -1L, 0),
                        TermError.RDMAP_BASE_BOUNDS, AsyncEventType.QP_REQ_ERR),
                new Extreme("READ request carrying a payload",
                        (p, r) -> readRequest(p, RdmapOpcode.QN_READ_REQUEST, 1, 16, r.mr().rkey(), r.addr(0), 8),
                        TermError.DDP_UNTAGGED_MESSAGE_TOO_LONG, AsyncEventType.QP_FATAL),
                new Extreme("WRITE to STag 0xFFFFFFFF", (p, r) -> p.write(-1, r.addr(0), pattern(16), true),
                        TermError.DDP_TAGGED_INVALID_STAG, AsyncEventType.QP_ACCESS_ERR),
                new Extreme("WRITE at offset 2^64-1", (p, r) -> p.write(r.mr().rkey(), -1L, pattern(16), true),
                        TermError.DDP_TAGGED_BASE_BOUNDS, AsyncEventType.QP_ACCESS_ERR),
                new Extreme("READ response with no READ outstanding, STag and offset all ones",
                        (p, r) -> p.readResponse(-1, -1L, pattern(16), true),
                        TermError.DDP_LOCAL_CATASTROPHIC, AsyncEventType.QP_FATAL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("headerExtremes")
    void everyDdpAndRdmapHeaderFieldAtItsExtremeDrawsTheTerminateSiwSends(Extreme x) {
        CanaryBuffer rw = region(Testbed.ALL);
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        Links.Accepted a = connected();
        receives(a, rq, 1);
        drawTerminate(a, x.fpdu().apply(a.peer(), rw), x.want(), x.event());
        assertCompletions(WcStatus.WR_FLUSH_ERR);
        m.assertUntouched();
    }

    /**
     * A TERMINATE from the peer whose every field is all ones (queue, MSN, MO, layer, type, code, the header
     * flags with no headers behind them, the longest ULPDU_Length): the QP ends quietly, as on any TERMINATE:
     * ERROR, QP_FATAL, receives flushed, the close upcall; no TERMINATE back, nothing placed.
     */
    @Test
    void aTerminateWithEveryFieldAllOnesEndsTheQpQuietly() {
        CanaryBuffer rq = region(Access.LOCAL_WRITE);
        Memory m = new Memory();
        int most = FpduHeader.MAX_MPA_LENGTH
                - (TerminateHeader.LENGTH - FpduHeader.MPA_LENGTH_FIELD_LENGTH);
        for (int payload : new int[] {0, 28, most}) {
            Links.Accepted a = connected();
            receives(a, rq, 1);
            byte[] t = a.peer().fpdu(RdmapOpcode.TERMINATE, true, new byte[payload], (h, rr) -> h.invalidateStag(-1)
                    .queueNumber(-1).messageSequenceNumber(-1).messageOffset(-1));
            int ctrl = TerminateHeader.CONTROL_OFFSET;
            java.util.Arrays.fill(t, ctrl, t.length - FpduHeader.CRC_LENGTH, (byte) 0xFF);
            long sent = tb.siw.counters().terminatesSent();
            a.peer().write(t);
            assertThat(a.peer().expectClose(0)).as("closed, nothing sent back").isIn("FIN", "RST");
            Await.state(a.qp(), QpState.ERR);
            assertThat(tb.event(AsyncEventType.QP_FATAL).qp().qpNum()).isEqualTo(a.qp().qpNum());
            assertThat(a.up().next("close").status()).isEqualTo(Errno.ECONNRESET.status());
            assertCompletions(WcStatus.WR_FLUSH_ERR);
            assertThat(tb.siw.counters().terminatesSent()).isEqualTo(sent);
        }
        m.assertUntouched();
    }
}
