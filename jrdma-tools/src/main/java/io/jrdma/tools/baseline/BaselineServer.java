package io.jrdma.tools.baseline;

import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

import io.jrdma.siw.TcpCongestion;
import io.jrdma.tools.cli.Errors;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.PerftestFormat;
import io.jrdma.tools.perf.RunMonitor;

/**
 * The server side of a baseline: listens on a TCP port (and the same UDP port for the UDP tools),
 * serves one client session as a perftest server does, then returns.
 *
 * <p>For each run the server takes the data (a fresh TCP connection, or datagrams from the
 * client's UDP port), echoes it for latency runs, counts it, and confirms the end with the counts.
 * It prints the rows the client computed, as a perftest server prints the figures it exchanged.
 */
final class BaselineServer implements Closeable {

    /**
     * Control messages may take this many stall timeouts to arrive: between two runs the client
     * computes its figures (under a second even for perftest's largest peak search).
     */
    static final int CONTROL_TIMEOUT_FACTOR = 2;

    /** TCP bandwidth runs are drained in chunks of at least this size. */
    static final int RECEIVE_CHUNK = 1 << 20;

    /** Socket receive buffer asked for on the UDP socket, to lose fewer datagrams. */
    static final int UDP_RECEIVE_BUFFER = 4 << 20;

    private static final int BIND_ATTEMPTS = 8;

    private final BaselineTool tool;
    private final IoMode mode;
    private final Duration stall;
    private final Duration controlTimeout;
    private final ServerSocketChannel listener;
    private final DatagramChannel udp;
    private ByteBuffer receive;
    private RunMonitor monitor;

    private BaselineServer(BaselineTool tool, IoMode mode, Duration stall, ServerSocketChannel listener,
            DatagramChannel udp) {
        this.tool = tool;
        this.mode = mode;
        this.stall = stall;
        this.controlTimeout = controlTimeout(stall);
        this.listener = listener;
        this.udp = udp;
    }

    /**
     * How long a control message may take for a stall timeout.
     *
     * @param stall the stall timeout
     * @return the control timeout
     */
    static Duration controlTimeout(Duration stall) {
        return stall.multipliedBy(CONTROL_TIMEOUT_FACTOR);
    }

    /**
     * Binds the server. With port 0 an ephemeral port is chosen, the same for TCP and UDP.
     *
     * @param tool the baseline to serve
     * @param bind the local address and port
     * @param mode the I/O mode of this side
     * @param stall how long a client may stay silent
     * @param tcpCongestion congestion control of the accepted TCP connections (they inherit the
     *     listener's), or {@code null} for the kernel's default
     * @return the bound server
     * @throws ToolFailure if the port cannot be bound or the congestion control cannot be chosen
     */
    static BaselineServer open(BaselineTool tool, InetSocketAddress bind, IoMode mode, Duration stall,
            String tcpCongestion) {
        IOException last = null;
        for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
            ServerSocketChannel l = null;
            DatagramChannel u = null;
            try {
                l = ServerSocketChannel.open();
                l.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                l.bind(bind);
                if (tcpCongestion != null && !tool.udp()) {
                    congestion(l, tcpCongestion);
                }
                if (tool.udp()) {
                    int port = ((InetSocketAddress) l.getLocalAddress()).getPort();
                    u = DatagramChannel.open(bind.getAddress() instanceof Inet6Address
                            ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
                    u.setOption(StandardSocketOptions.SO_RCVBUF, UDP_RECEIVE_BUFFER);
                    u.bind(new InetSocketAddress(bind.getAddress(), port));
                }
                return new BaselineServer(tool, mode, stall, l, u);
            } catch (IOException e) {
                last = e;
                closeQuietly(l);
                closeQuietly(u);
                if (bind.getPort() != 0 || !(e instanceof BindException)) {
                    break;
                }
            }
        }
        throw new ToolFailure("cannot listen on " + Hosts.endpoint(bind) + ": "
                + (last == null ? "unknown error" : last.getMessage()), last);
    }

    /**
     * Puts {@code ch} on TCP congestion control {@code name}.
     *
     * @throws ToolFailure naming the algorithm when the system cannot or will not
     */
    static void congestion(java.nio.channels.NetworkChannel ch, String name) {
        try {
            TcpCongestion.set(ch, name);
        } catch (IOException | UnsupportedOperationException e) {
            closeQuietly(ch);
            throw new ToolFailure("--tcp-cc " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * The bound port (TCP, and UDP for the UDP tools).
     *
     * @return the port
     */
    int port() {
        try {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException("server is closed", e);
        }
    }

    /**
     * Serves one client session.
     *
     * @param reporter where the banner and rows go
     * @param acceptTimeout how long to wait for the client; zero waits for ever
     * @throws ToolFailure on a bad client, a silent client, or a failed connection
     */
    void serve(PerfReporter reporter, Duration acceptTimeout) {
        reporter.line(PerftestFormat.WAITING_FOR_CLIENT);
        ControlChannel control;
        try {
            listener.socket().setSoTimeout((int) Math.min(Integer.MAX_VALUE, acceptTimeout.toMillis()));
            Socket s = listener.socket().accept();
            control = new ControlChannel(s.getChannel());
        } catch (SocketTimeoutException e) {
            throw new ToolFailure("no client connected within " + acceptTimeout.toSeconds() + " s", e);
        } catch (IOException e) {
            throw new ToolFailure("accepting the client failed: " + e.getMessage(), e);
        }
        String peer = "client";
        try (ControlChannel c = control) {
            peer = "client " + Hosts.endpoint(c.remoteAddress());
            ChannelIo udpIo = greet(c);
            reporter.banner(BaselineBanner.lines(tool, mode, true, c.localAddress(), 0, false));
            reporter.line(BaselineBanner.addressLine("local", c.localAddress()));
            reporter.line(BaselineBanner.addressLine("remote", c.remoteAddress()));
            boolean headed = false;
            for (;;) {
                ControlMessage m = c.receive(controlTimeout);
                switch (m) {
                    case ControlMessage.Run r -> c.send(tool.udp() ? serveUdp(c, udpIo, r) : serveTcp(c, r));
                    case ControlMessage.Result r -> {
                        if (!headed) {
                            reporter.header(PerftestFormat.header(r.result()));
                            headed = true;
                        }
                        reporter.row(r.result());
                    }
                    case ControlMessage.Bye b -> {
                        reporter.footer();
                        return;
                    }
                    default -> throw new ProtocolException("unexpected " + m);
                }
            }
        } catch (IOException e) {
            boolean stalled = monitor != null && monitor.stalled();
            throw Errors.connectionFailed(e, peer, stalled, stall.toSeconds());
        }
    }

    private ChannelIo greet(ControlChannel c) throws IOException {
        ControlMessage.Hello hello = c.expect(ControlMessage.Hello.class, controlTimeout);
        String refusal = null;
        if (hello.version() != ControlMessage.VERSION) {
            refusal = "protocol version " + hello.version() + " is not " + ControlMessage.VERSION;
        } else if (hello.tool() != tool) {
            refusal = "this server runs " + tool.command() + ", the client asked for " + hello.tool().command();
        } else if (tool.udp() && hello.udpPort() == 0) {
            refusal = "the client gave no UDP port";
        }
        if (refusal != null) {
            c.send(new ControlMessage.HelloAck(false, refusal));
            throw new ToolFailure("refused a client: " + refusal);
        }
        ChannelIo udpIo = null;
        if (tool.udp()) {
            udp.connect(new InetSocketAddress(c.remoteAddress().getAddress(), hello.udpPort()));
            udpIo = ChannelIo.of(udp, mode);
        }
        c.send(new ControlMessage.HelloAck(true, ""));
        return udpIo;
    }

    private ControlMessage serveTcp(ControlChannel c, ControlMessage.Run run) throws IOException {
        listener.socket().setSoTimeout((int) controlTimeout.toMillis());
        SocketChannel data = listener.socket().accept().getChannel();
        try (ChannelIo io = ChannelIo.of(data, mode)) {
            InetSocketAddress from = (InetSocketAddress) data.getRemoteAddress();
            if (!from.getAddress().equals(c.remoteAddress().getAddress())) {
                String why = "data connection from " + from + " is not from the client";
                c.send(new ControlMessage.Failed(why));
                throw new ToolFailure(why);
            }
            data.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.send(new ControlMessage.Ready(run.runId()));
            monitor = new RunMonitor(tool.command() + " server", 0, null, false, stall.toNanos(),
                    () -> closeQuietly(io));
            try (RunMonitor mon = monitor) {
                return tool.bandwidth() ? drain(io, run, mon) : echo(io, run, mon);
            }
        }
    }

    private ControlMessage drain(ChannelIo io, ControlMessage.Run run, RunMonitor mon) throws IOException {
        ByteBuffer buf = receiveBuffer(Math.max(run.size(), RECEIVE_CHUNK));
        long bytes = 0;
        for (;;) {
            buf.clear();
            int n = io.read(buf);
            if (n < 0) {
                break;
            }
            bytes += n;
            mon.progress(bytes);
        }
        return new ControlMessage.Done(run.runId(), bytes / run.size(), bytes);
    }

    private ControlMessage echo(ChannelIo io, ControlMessage.Run run, RunMonitor mon) throws IOException {
        ByteBuffer buf = receiveBuffer(run.size());
        int size = run.size();
        long messages = 0;
        for (;;) {
            buf.clear().limit(size);
            if (io.read(buf) < 0) {
                break;
            }
            io.readFully(buf);
            buf.flip();
            io.writeFully(buf);
            messages++;
            mon.progress(messages);
        }
        return new ControlMessage.Done(run.runId(), messages, messages * size);
    }

    private ControlMessage serveUdp(ControlChannel c, ChannelIo io, ControlMessage.Run run) throws IOException {
        ByteBuffer buf = receiveBuffer(BaselineTool.MAX_UDP_PAYLOAD + 1);
        c.send(new ControlMessage.Ready(run.runId()));
        monitor = new RunMonitor(tool.command() + " server", 0, null, false, stall.toNanos(),
                () -> closeQuietly(io));
        boolean echo = !tool.bandwidth();
        int runId = run.runId();
        long messages = 0;
        long bytes = 0;
        try (RunMonitor mon = monitor) {
            for (;;) {
                buf.clear();
                int n = io.read(buf);
                if (n >= 1 && buf.get(0) == BaselineClient.MARKER) {
                    if (n == BaselineClient.MARKER_LENGTH && buf.getInt(1) == runId) {
                        break;
                    }
                    continue; // a late marker of an earlier run
                }
                messages++;
                bytes += n;
                mon.progress(messages);
                if (echo) {
                    buf.flip();
                    io.writeFully(buf);
                }
            }
        }
        return new ControlMessage.Done(runId, messages, bytes);
    }

    private ByteBuffer receiveBuffer(int size) {
        if (receive == null || receive.capacity() < size) {
            receive = ByteBuffer.allocateDirect(size);
        }
        return receive;
    }

    @Override
    public void close() {
        closeQuietly(listener);
        closeQuietly(udp);
    }

    private static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
