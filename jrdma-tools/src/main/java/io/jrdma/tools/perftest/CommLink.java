package io.jrdma.tools.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.tools.rdma.CmWait;
import io.jrdma.tools.rdma.CqWaiter;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;

/**
 * perftest's control connection in the rdma_cm mode ({@code -R}, which also sets {@code -z}): an RC
 * connection to the test port, separate from the measured QPs, over which the two sides exchange
 * versions, system data, MTUs, {@link PingpongDest}s and the final bandwidth report, each as one
 * SEND into the peer's single 56-byte receive buffer. The client writes first and then reads; the
 * server reads first and then writes, reposting its receive before answering, so one receive is
 * always enough.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_communication.c}: {@code rdma_client_connect}
 * / {@code rdma_server_connect} (connection parameters: no IRD/ORD, retry 7, RNR retry 7, the
 * receive posted before connect/accept), {@code ctx_hand_shake}, {@code ctx_xchg_data_rdma},
 * {@code rdma_write_data} / {@code rdma_read_data}, {@code exchange_versions},
 * {@code check_sys_data}, {@code check_mtu} and {@code xchg_bw_reports}.
 */
final class CommLink {

    /** The perftest version jrdma announces (Debian 12's perftest 4.5-0.20 says "6.06"). */
    static final String VERSION = "6.06";

    /** Bytes of the version exchange ({@code MAX_VERSION}). */
    static final int VERSION_BYTES = 16;

    /** The oldest peer version perftest accepts ({@code check_version_compatibility}). */
    static final double MIN_PEER_VERSION = 5.70;

    /** perftest's wr_id for control messages ({@code SYNC_SPEC_ID}). */
    static final long SYNC_SPEC_ID = 5;

    /** Bytes of the MTU exchange from version 5.31 on ({@code sizeof(char[2])}). */
    static final int MTU_BYTES = 2;

    /** Waits with no natural bound (the peer runs its test) still end when the peer disconnects. */
    static final Duration UNBOUNDED = Duration.ofDays(1);

    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final boolean client;
    private final CmId id;
    private final String peer;
    private final Duration timeout;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final MemorySegment sendBuf;
    private final MemorySegment recvBuf;
    private final SendWr sendWr;
    private final RecvWr recvWr;
    private final CqWaiter recvWaiter;
    private final CqWaiter sendWaiter;

    private CommLink(boolean client, CmId id, EventChannel ch, String peer, Duration timeout, Cleanup c) {
        this.client = client;
        this.id = id;
        this.peer = peer;
        this.timeout = timeout;
        ProtectionDomain pd = c.add(id.verbs().allocPd());
        sendCq = c.add(id.verbs().createCq(4));
        CompletionQueue recvCq = c.add(id.verbs().createCq(4));
        qp = id.createQp(pd, new QpInitAttr(QpType.RC, sendCq, recvCq, null, new QpCap(2, 2, 1, 1, 0), false));
        c.onClose(id::destroyQp);
        Arena arena = c.add(Arena.ofShared());
        sendBuf = arena.allocate(PingpongDest.LENGTH, 8);
        recvBuf = arena.allocate(PingpongDest.LENGTH, 8);
        MemoryRegion sendMr = c.add(pd.registerMemory(sendBuf, Access.LOCAL_WRITE));
        MemoryRegion recvMr = c.add(pd.registerMemory(recvBuf, Access.LOCAL_WRITE));
        sendWr = new SendWr().wrId(SYNC_SPEC_ID).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                .sg(sendMr, 0, PingpongDest.LENGTH);
        recvWr = new RecvWr().wrId(SYNC_SPEC_ID).sg(recvMr, 0, PingpongDest.LENGTH);
        recvWaiter = new CqWaiter(recvCq, ch);
        sendWaiter = new CqWaiter(sendCq, null);
        postRecv();
    }

    /**
     * The client side: resolves, connects and waits for ESTABLISHED.
     *
     * @param cm the connection manager
     * @param server the server's test port
     * @param source the source address ({@code --source_ip}), or null
     * @param timeout the setup timeout
     * @param c where the resources are released
     * @return the link
     */
    static CommLink connect(RdmaCm cm, InetSocketAddress server, InetSocketAddress source, Duration timeout,
            Cleanup c) {
        String peer = Hosts.endpoint(server);
        EventChannel ch = c.add(cm.createEventChannel());
        CmId id = ch.createId(null, PortSpace.TCP);
        c.onClose(id::destroy);
        try {
            id.resolveAddr(source, server, Duration.ofMillis(2000));
        } catch (RdmaException e) {
            throw CmWait.callFailed("rdma_resolve_addr", e, peer);
        }
        CmWait.expect(ch, CmEventType.ADDR_RESOLVED, timeout, peer);
        id.resolveRoute(Duration.ofMillis(2000));
        CmWait.expect(ch, CmEventType.ROUTE_RESOLVED, timeout, peer);
        CommLink link = new CommLink(true, id, ch, peer, timeout, c);
        try {
            id.connect(new ConnParam(null, 0, 0, false, 7, 7, false, 0));
        } catch (RdmaException e) {
            throw CmWait.callFailed("rdma_connect", e, peer);
        }
        CmWait.expect(ch, CmEventType.ESTABLISHED, timeout, peer);
        return link;
    }

    /**
     * The server side: takes the first CONNECT_REQUEST, moves the new id to its own channel and
     * accepts it. Like perftest it does not wait for ESTABLISHED: the first read does.
     *
     * @param cm the connection manager
     * @param req the CONNECT_REQUEST (acknowledged by the caller)
     * @param timeout the stall timeout
     * @param c where the resources are released
     * @return the link
     */
    static CommLink accept(RdmaCm cm, CmEvent req, Duration timeout, Cleanup c) {
        CmId id = req.id();
        InetSocketAddress pa = id.peerAddress();
        String peer = pa == null ? "client" : Hosts.endpoint(pa);
        EventChannel ch = c.add(cm.createEventChannel());
        ch.migrateId(id);
        c.onClose(id::destroy);
        CommLink link = new CommLink(false, id, ch, peer, timeout, c);
        try {
            id.accept(new ConnParam(null, 0, 0, false, 7, 7, false, 0));
        } catch (RdmaException e) {
            throw CmWait.callFailed("rdma_accept", e, peer);
        }
        return link;
    }

    /**
     * The device context of the control connection (the data connections use the same device).
     *
     * @return the context
     */
    io.jrdma.verbs.Context verbs() {
        return id.verbs();
    }

    /**
     * The peer as printed in messages.
     *
     * @return e.g. {@code 127.0.0.1:18515}
     */
    String peer() {
        return peer;
    }

    /**
     * {@code ctx_xchg_data}: the client sends {@code mine} then reads the peer's message; the server
     * reads first. Both messages have the same length in perftest.
     *
     * @param mine the bytes to send, at most {@link PingpongDest#LENGTH}
     * @param wait how long the peer may take
     * @param what what is exchanged, for messages
     * @return the peer's bytes
     */
    byte[] exchange(byte[] mine, Duration wait, String what) {
        if (client) {
            write(mine, what);
            return read(wait, what);
        }
        byte[] theirs = read(wait, what);
        write(mine, what);
        return theirs;
    }

    /**
     * {@code ctx_hand_shake}: exchanges {@link PingpongDest}s.
     *
     * @param mine this side's record
     * @param gidIndex this side's GID index (perftest keeps its own in the peer's record)
     * @param wait how long the peer may take
     * @return the peer's record
     */
    PingpongDest handshake(PingpongDest mine, int gidIndex, Duration wait) {
        byte[] out = new byte[PingpongDest.LENGTH];
        mine.encode(MemorySegment.ofArray(out), 0);
        byte[] in = exchange(out, wait, "handshake");
        if (in.length < PingpongDest.LENGTH) {
            throw new ToolFailure("the peer's handshake has " + in.length + " bytes, not " + PingpongDest.LENGTH
                    + " (is it perftest in the rdma_cm mode, -R?)");
        }
        return PingpongDest.decode(MemorySegment.ofArray(in), 0, gidIndex);
    }

    /**
     * {@code check_sys_data}: exchanges the page size (cycle buffer) and cache line size and keeps
     * the larger of each.
     *
     * @param cycleBuffer this side's cycle buffer
     * @param cacheLine this side's cache line
     * @return {@code {cycleBuffer, cacheLine}} agreed
     */
    int[] exchangeSysData(int cycleBuffer, int cacheLine) {
        int theirCycle = readInt(exchange(beInt(cycleBuffer), timeout, "page size"));
        int theirLine = readInt(exchange(beInt(cacheLine), timeout, "cache line size"));
        return new int[] {Math.max(cycleBuffer, theirCycle), Math.max(cacheLine, theirLine)};
    }

    /**
     * {@code check_mtu}: exchanges the MTU as the decimal text of its {@code ibv_mtu} code in two
     * bytes and keeps the smaller valid one.
     *
     * @param mtuCode this side's code (1 = 256 ... 5 = 4096)
     * @return the code both use
     */
    int exchangeMtu(int mtuCode) {
        byte[] mine = new byte[MTU_BYTES];
        byte[] text = Integer.toString(mtuCode).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, mine, 0, Math.min(text.length, MTU_BYTES));
        byte[] theirs = exchange(mine, timeout, "MTU");
        int remote = (int) atof(theirs);
        return remote >= 1 && remote <= 5 && mtuCode > remote ? remote : mtuCode;
    }

    /**
     * {@code xchg_bw_reports} (without the per-port figures): size, iterations (8 bytes, as peers
     * from 5.33 on), peak, average and message rate, each its own exchange, big-endian.
     *
     * @param mine this side's report
     * @return the peer's report
     */
    BwReport exchangeReports(BwReport mine) {
        long size = readLong(exchange(beLong(mine.size()), UNBOUNDED, "report size"));
        long iters = readLong(exchange(beLong(mine.iterations()), timeout, "report iterations"));
        double peak = Double.longBitsToDouble(readLong(exchange(beLong(Double.doubleToRawLongBits(mine.bwPeak())),
                timeout, "report peak")));
        double avg = Double.longBitsToDouble(readLong(exchange(beLong(Double.doubleToRawLongBits(mine.bwAverage())),
                timeout, "report average")));
        double rate = Double.longBitsToDouble(readLong(exchange(beLong(Double.doubleToRawLongBits(
                mine.msgRate())), timeout, "report message rate")));
        return new BwReport(size, iters, peak, avg, rate);
    }

    /** {@code rdma_disconnect} of the control connection (errors ignored: the peer may be gone). */
    void disconnect() {
        try {
            id.disconnect();
        } catch (RuntimeException e) {
            // already disconnected
        }
    }

    private void write(byte[] data, String what) {
        MemorySegment.copy(data, 0, sendBuf, ValueLayout.JAVA_BYTE, 0, data.length);
        sendWr.sge(0).length(data.length);
        if (qp.postSend(sendWr) != 1) {
            throw new ToolFailure("Function ibv_post_send failed (control QP full) sending the " + what);
        }
        WorkCompletion wc = sendWaiter.next(timeout, "send completion of the " + what);
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.SEND) {
            throw new ToolFailure(" Bad wc status " + wc.status() + " sending the " + what + " to " + peer);
        }
    }

    private byte[] read(Duration wait, String what) {
        while (true) {
            WorkCompletion wc = recvWaiter.next(wait, what + " from " + peer);
            if (wc == null) {
                CmEvent e = recvWaiter.takeEvent();
                recvWaiter.channel().ackEvent(e);
                if (e.type() == CmEventType.ESTABLISHED) {
                    continue;
                }
                if (e.type() == CmEventType.DISCONNECTED) {
                    throw new ToolFailure(peer + " disconnected while this side waited for the " + what);
                }
                throw new ToolFailure(CmWait.describe(e, peer, CmEventType.ESTABLISHED));
            }
            if (wc.status() != WcStatus.SUCCESS) {
                throw new ToolFailure(peer + " went away while this side waited for the " + what + " ("
                        + wc.status() + ")");
            }
            byte[] data = new byte[wc.byteLen()];
            MemorySegment.copy(recvBuf, ValueLayout.JAVA_BYTE, 0, data, 0, data.length);
            postRecv();
            return data;
        }
    }

    private void postRecv() {
        if (qp.postRecv(recvWr) != 1) {
            throw new ToolFailure("Function ibv_post_recv failed for RDMA_CM QP");
        }
    }

    private static byte[] beInt(int v) {
        byte[] b = new byte[4];
        MemorySegment.ofArray(b).set(BE32, 0, v);
        return b;
    }

    private static byte[] beLong(long v) {
        byte[] b = new byte[8];
        MemorySegment.ofArray(b).set(BE64, 0, v);
        return b;
    }

    private static int readInt(byte[] b) {
        if (b.length < 4) {
            throw new ToolFailure("short control message from the peer: " + b.length + " bytes, expected 4");
        }
        return MemorySegment.ofArray(b).get(BE32, 0);
    }

    private static long readLong(byte[] b) {
        if (b.length < 8) {
            throw new ToolFailure("short control message from the peer: " + b.length + " bytes, expected 8");
        }
        return MemorySegment.ofArray(b).get(BE64, 0);
    }

    static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    /** C's {@code atof} on a NUL-terminated buffer: the leading decimal number, 0 if none. */
    static double atof(byte[] b) {
        String s = cString(b).strip();
        int end = 0;
        boolean dot = false;
        while (end < s.length()) {
            char ch = s.charAt(end);
            if (Character.isDigit(ch) || (ch == '.' && !dot) || (end == 0 && (ch == '-' || ch == '+'))) {
                dot |= ch == '.';
                end++;
            } else {
                break;
            }
        }
        try {
            return end == 0 ? 0 : Double.parseDouble(s.substring(0, end));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * One side's bandwidth report as {@code xchg_bw_reports} carries it.
     *
     * @param size the message size
     * @param iterations messages counted
     * @param bwPeak peak, in the sender's unit
     * @param bwAverage average, in the sender's unit
     * @param msgRate message rate in Mpps
     */
    record BwReport(long size, long iterations, double bwPeak, double bwAverage, double msgRate) {
    }
}
