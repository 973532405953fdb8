package io.jrdma.tools.baseline;

import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.jrdma.tools.cli.Errors;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.BwStats;
import io.jrdma.tools.perf.LatStats;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perf.RunMonitor;

/**
 * The client side of a baseline: connects the control channel, runs every size of the spec
 * (an untimed warm-up first, then the measured run), computes perftest's figures and reports them.
 *
 * <p>Bandwidth: the client streams N messages of the size; a message's post time is taken before
 * its write and its completion time when the write returns, except the last message of a TCP run,
 * which completes when the server confirms it has received every byte (as perftest's last
 * completion is the peer's acknowledgement). The average is therefore end to end, while the peak
 * (the best window of consecutive writes) mostly measures how fast writes fill the socket buffer.
 * UDP figures are send-side, as perftest's UD client
 * reports; datagrams the server did not receive are reported separately.
 * Latency: a ping-pong of one message each way; a sample is the time between two consecutive
 * sends, one round trip, reported halved as perftest reports SEND and WRITE latency.
 */
final class BaselineClient {

    /** How long a connection attempt may take. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** Marker datagram: type byte {@value #MARKER}, then the run id. */
    static final int MARKER_LENGTH = 5;

    /** First byte of an end-of-run marker datagram; data datagrams start with 0. */
    static final byte MARKER = 1;

    /** How often an unanswered end marker is sent again. */
    private static final long MARKER_RESEND_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** Histogram range of timed latency runs: 1 ns to 60 s, 3 significant digits. */
    private static final long HISTOGRAM_MAX_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final BaselineSpec spec;
    private final InetSocketAddress server;
    private final PerfReporter reporter;
    private final PrintStream err;
    private final boolean terminal;
    private final String peer;
    private final Duration controlTimeout;
    private ControlChannel control;
    private DatagramChannel udp;
    private ChannelIo udpIo;
    private int nextRunId = 1;
    private RunMonitor monitor;

    /**
     * Prepares a client.
     *
     * @param spec what to run
     * @param server the server's control address
     * @param reporter where rows go
     * @param err where warnings and progress go
     * @param terminal whether a progress line may be shown
     */
    BaselineClient(BaselineSpec spec, InetSocketAddress server, PerfReporter reporter, PrintStream err,
            boolean terminal) {
        this.spec = spec;
        this.server = server;
        this.reporter = reporter;
        this.err = err;
        this.terminal = terminal;
        this.peer = Hosts.endpoint(server);
        this.controlTimeout = BaselineServer.controlTimeout(spec.stallTimeout());
    }

    /**
     * Runs every size.
     *
     * @return one row per size
     * @throws ToolFailure if the server cannot be reached, fails, goes silent, or a check fails
     */
    List<BaselineRow> run() {
        connect();
        try {
            List<BaselineRow> rows = new ArrayList<>();
            reporter.banner(BaselineBanner.lines(spec.tool(), spec.ioMode(), false, control.localAddress(),
                    spec.warmupIterations(), spec.timed()));
            reporter.line(BaselineBanner.addressLine("local", control.localAddress()));
            reporter.line(BaselineBanner.addressLine("remote", control.remoteAddress()));
            reporter.header(BaselineBanner.header(spec));
            for (int size : spec.sizes()) {
                int warmup = spec.warmupFor(size);
                if (warmup > 0) {
                    runOnce(size, warmup, true);
                }
                BaselineRow row = runOnce(size, spec.iterations(), false);
                control.send(new ControlMessage.Result(row.result()));
                reporter.row(row.result());
                if (row.lostMessages() > 0) {
                    err.println("jrdma " + spec.tool().command() + ": " + row.serverMessages() + " of "
                            + row.clientMessages() + " datagrams of " + size + " bytes arrived ("
                            + row.lostMessages() + " lost)");
                }
                rows.add(row);
            }
            reporter.footer();
            control.send(new ControlMessage.Bye());
            return rows;
        } catch (ControlChannel.PeerFailedException e) {
            throw new ToolFailure("server " + peer + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            boolean stalled = monitor != null && monitor.stalled();
            throw Errors.connectionFailed(e, "server " + peer, stalled, spec.stallTimeout().toSeconds());
        } finally {
            closeQuietly();
        }
    }

    private void connect() {
        try {
            SocketChannel ch = SocketChannel.open();
            try {
                ch.socket().connect(server, (int) CONNECT_TIMEOUT.toMillis());
            } catch (IOException e) {
                ch.close();
                throw e;
            }
            control = new ControlChannel(ch);
        } catch (IOException e) {
            throw Errors.connectFailed(e, peer);
        }
        try {
            int udpPort = 0;
            if (spec.tool().udp()) {
                udp = DatagramChannel.open(server.getAddress() instanceof Inet6Address
                        ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
                udp.bind(new InetSocketAddress(control.localAddress().getAddress(), 0));
                udp.connect(server);
                udpPort = ((InetSocketAddress) udp.getLocalAddress()).getPort();
                udpIo = ChannelIo.of(udp, spec.ioMode());
            }
            control.send(new ControlMessage.Hello(ControlMessage.VERSION, spec.tool(), udpPort));
            ControlMessage.HelloAck ack = control.expect(ControlMessage.HelloAck.class, controlTimeout);
            if (!ack.accepted()) {
                closeQuietly();
                throw new ToolFailure("server " + peer + " refused the test: " + ack.reason());
            }
        } catch (IOException e) {
            closeQuietly();
            throw Errors.connectionFailed(e, "server " + peer, false, 0);
        }
    }

    private BaselineRow runOnce(int size, long iterations, boolean warmup) throws IOException {
        int runId = nextRunId++;
        boolean timed = spec.timed() && !warmup;
        control.send(new ControlMessage.Run(runId, size, timed ? -1 : iterations, warmup));
        SocketChannel data = null;
        ChannelIo io;
        if (spec.tool().udp()) {
            io = udpIo;
        } else {
            data = SocketChannel.open();
            data.setOption(StandardSocketOptions.TCP_NODELAY, true);
            try {
                data.socket().connect(server, (int) CONNECT_TIMEOUT.toMillis());
            } catch (IOException e) {
                data.close();
                throw e;
            }
            if (spec.tcpCongestion() != null) {
                // Before the first byte; Linux re-initialises the algorithm of a connected socket.
                BaselineServer.congestion(data, spec.tcpCongestion());
            }
            io = ChannelIo.of(data, spec.ioMode());
        }
        try {
            ControlMessage.Ready ready = control.expect(ControlMessage.Ready.class, controlTimeout);
            if (ready.runId() != runId) {
                throw new ProtocolException("server is ready for run " + ready.runId() + ", not " + runId);
            }
            String label = spec.tool().command() + " " + size + " B" + (warmup ? " warm-up" : "");
            ChannelIo watched = io;
            monitor = new RunMonitor(label, timed ? 0 : iterations, err, terminal && !warmup,
                    spec.stallTimeout().toNanos(), () -> closeQuietly(watched));
            Measured m;
            ControlMessage.Done done;
            try {
                m = measure(io, size, timed ? 0 : (int) Math.min(Integer.MAX_VALUE, iterations), timed, warmup);
                if (data != null) {
                    data.shutdownOutput();
                }
                done = spec.tool().udp() ? endUdpRun(runId) : expectDone(runId);
                m.finish(System.nanoTime());
            } finally {
                monitor.close();
            }
            verify(size, m, done);
            return warmup ? null : new BaselineRow(m.result(size), done.messages(), done.bytes(), m.sent);
        } finally {
            if (data != null) {
                io.close();
            }
        }
    }

    private ControlMessage.Done expectDone(int runId) throws IOException {
        ControlMessage.Done done = control.expect(ControlMessage.Done.class, controlTimeout);
        if (done.runId() != runId) {
            throw new ProtocolException("server finished run " + done.runId() + ", not " + runId);
        }
        return done;
    }

    /** UDP has no end of stream: send end markers until the server confirms on the control channel. */
    private ControlMessage.Done endUdpRun(int runId) throws IOException {
        ByteBuffer marker = ByteBuffer.allocateDirect(MARKER_LENGTH);
        marker.put(0, MARKER).putInt(1, runId);
        long deadline = System.nanoTime() + spec.stallTimeout().toNanos();
        for (;;) {
            marker.clear();
            udpIo.writeFully(marker);
            if (control.awaitReadable(MARKER_RESEND_NANOS)) {
                return expectDone(runId);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new ToolFailure("server " + peer + " did not confirm the end of a run within "
                        + spec.stallTimeout().toSeconds() + " s");
            }
        }
    }

    private void verify(int size, Measured m, ControlMessage.Done done) {
        if (spec.tool().udp()) {
            if (done.messages() > m.sent) {
                throw new ToolFailure("verification failed: server counted " + done.messages()
                        + " datagrams of a run that sent " + m.sent);
            }
            return;
        }
        long expected = spec.tool().bandwidth() ? m.sent * size : m.sent;
        long got = spec.tool().bandwidth() ? done.bytes() : done.messages();
        if (got != expected) {
            throw new ToolFailure("verification failed: server received " + got
                    + (spec.tool().bandwidth() ? " bytes" : " messages") + ", client sent " + expected);
        }
    }

    private Measured measure(ChannelIo io, int size, int iterations, boolean timed, boolean warmup)
            throws IOException {
        ByteBuffer send = ByteBuffer.allocateDirect(size);
        Measured m = new Measured(spec, timed, iterations, warmup);
        if (spec.tool().bandwidth()) {
            if (timed) {
                streamTimed(io, send, m);
            } else {
                stream(io, send, m);
            }
        } else {
            ByteBuffer recv = ByteBuffer.allocateDirect(Math.max(size, MARKER_LENGTH));
            if (timed) {
                pingPongTimed(io, send, recv, size, m);
            } else {
                pingPong(io, send, recv, size, m);
            }
        }
        return m;
    }

    private void stream(ChannelIo io, ByteBuffer send, Measured m) throws IOException {
        RunMonitor mon = monitor;
        long[] posted = m.posted;
        long[] completed = m.completed;
        int n = m.iterations;
        if (posted.length == n) {
            for (int i = 0; i < n; i++) {
                send.clear();
                posted[i] = System.nanoTime();
                io.writeFully(send);
                completed[i] = System.nanoTime();
                mon.progress(i + 1);
            }
        } else {
            // No peak wanted: keep only the first post; the last completion is set by finish().
            posted[0] = System.nanoTime();
            for (int i = 0; i < n; i++) {
                send.clear();
                io.writeFully(send);
                mon.progress(i + 1);
            }
            completed[0] = System.nanoTime();
        }
        m.sent = n;
    }

    private void streamTimed(ChannelIo io, ByteBuffer send, Measured m) throws IOException {
        RunMonitor mon = monitor;
        DurationWindow w = new DurationWindow(System.nanoTime(), spec.durationSeconds(), spec.marginSeconds());
        long sent = 0;
        do {
            send.clear();
            io.writeFully(send);
            sent++;
            mon.progress(sent);
        } while (w.completed(System.nanoTime()));
        m.sent = sent;
        m.window = w;
    }

    private void pingPong(ChannelIo io, ByteBuffer send, ByteBuffer recv, int size, Measured m) throws IOException {
        RunMonitor mon = monitor;
        long[] posted = m.posted;
        int n = m.iterations;
        for (int i = 0; i < n; i++) {
            posted[i] = System.nanoTime();
            send.clear();
            io.writeFully(send);
            awaitReply(io, recv, size);
            mon.progress(i + 1);
        }
        m.sent = n;
    }

    private void pingPongTimed(ChannelIo io, ByteBuffer send, ByteBuffer recv, int size, Measured m)
            throws IOException {
        RunMonitor mon = monitor;
        Histogram h = m.histogram;
        DurationWindow w = new DurationWindow(System.nanoTime(), spec.durationSeconds(), spec.marginSeconds());
        long sent = 0;
        long now;
        do {
            long start = System.nanoTime();
            send.clear();
            io.writeFully(send);
            awaitReply(io, recv, size);
            sent++;
            mon.progress(sent);
            now = System.nanoTime();
            if (w.sampling()) {
                h.recordValue(Math.min(HISTOGRAM_MAX_NANOS, (now - start) / LatStats.RTT_FACTOR_PING_PONG));
            }
        } while (w.completed(now));
        m.sent = sent;
        m.window = w;
    }

    private void awaitReply(ChannelIo io, ByteBuffer recv, int size) throws IOException {
        if (spec.tool().udp()) {
            for (;;) {
                recv.clear();
                int got = io.read(recv);
                if (got == size && recv.get(0) != MARKER) {
                    return;
                }
                // A stray datagram (none expected on a ping-pong): wait for the real reply.
            }
        }
        recv.clear().limit(size);
        io.readFully(recv);
    }

    private void closeQuietly() {
        closeQuietly(udpIo);
        if (control != null) {
            try {
                control.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private static void closeQuietly(ChannelIo io) {
        if (io != null) {
            try {
                io.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** What one run measured, before the figures are computed. */
    private static final class Measured {
        private final BaselineSpec spec;
        private final boolean timed;
        private final int iterations;
        private final long[] posted;
        private final long[] completed;
        private final boolean peak;
        private final Histogram histogram;
        private long sent;
        private DurationWindow window;

        Measured(BaselineSpec spec, boolean timed, int iterations, boolean warmup) {
            this.spec = spec;
            this.timed = timed;
            this.iterations = iterations;
            boolean bw = spec.tool().bandwidth();
            this.peak = bw && !warmup && BwStats.peakWanted(iterations, timed, spec.noPeak());
            int slots;
            if (timed) {
                slots = 0;
            } else if (bw) {
                slots = peak ? iterations : 1;
            } else {
                slots = iterations;
            }
            this.posted = new long[slots];
            this.completed = new long[bw ? slots : 0];
            this.histogram = timed && !bw ? new Histogram(HISTOGRAM_MAX_NANOS, 3) : null;
        }

        /** Called when the server confirmed the end: a TCP stream's last message completes now. */
        void finish(long now) {
            if (!timed && spec.tool().bandwidth() && !spec.tool().udp() && completed.length > 0) {
                completed[completed.length - 1] = now;
            }
        }

        PerfResult result(int size) {
            if (spec.tool().bandwidth()) {
                if (timed) {
                    return BwStats.fromInterval(size, window.counted(), Math.max(1, window.sampleNanos()),
                            spec.unit());
                }
                if (peak) {
                    return BwStats.fromTimestamps(size, posted, completed, iterations, 1, 1, true, spec.unit());
                }
                return BwStats.fromInterval(size, iterations, Math.max(1, completed[0] - posted[0]), spec.unit());
            }
            if (timed) {
                return LatStats.fromDuration(size, window.counted(), Math.max(1, window.sampleNanos()),
                        LatStats.RTT_FACTOR_PING_PONG, histogram);
            }
            return LatStats.fromPostTimes(size, posted, iterations, LatStats.RTT_FACTOR_PING_PONG);
        }
    }
}
