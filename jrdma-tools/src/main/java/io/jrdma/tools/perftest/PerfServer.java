package io.jrdma.tools.perftest;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;

import io.jrdma.cm.CmId;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.Hosts;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.tools.rdma.CmWait;
import io.jrdma.tools.rdma.ToolDevices;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;

/**
 * The server side of a perftest tool: listens on the test port at {@link #open} (so a client may
 * connect as soon as it returns) and runs one test with the first client in {@link #serve}.
 *
 * <pre>{@code
 * try (PerfServer s = PerfServer.open(spec, new InetSocketAddress("127.0.0.1", 0))) {
 *     // start the client against s.port() ...
 *     PerfRun run = s.serve(PerfReporter.none(), System.err, false, Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public final class PerfServer implements AutoCloseable {

    /** Draws of an ephemeral port before giving up. */
    static final int EPHEMERAL_ATTEMPTS = 8;

    private final PerfSpec spec;
    private final Cleanup cleanup = new Cleanup();
    private final RdmaCm cm;
    private final EventChannel channel;
    private final int port;

    private PerfServer(PerfSpec spec, InetSocketAddress bind) {
        this.spec = spec;
        try {
            cm = cleanup.add(ToolDevices.openCm(spec.device()));
            channel = cleanup.add(cm.createEventChannel());
            String where = Hosts.endpoint(bind);
            CmId listener = null;
            for (int attempt = 1; listener == null; attempt++) {
                CmId id = channel.createId(null, PortSpace.TCP);
                try {
                    id.bind(bind);
                    id.listen(spec.numQps() + 1);
                    listener = id;
                } catch (RdmaException e) {
                    id.destroy();
                    // Port 0: the connection manager draws from the ephemeral range, which the host's own
                    // sockets share; another draw finds a free port.
                    if (bind.getPort() != 0 || e.errno() != Errno.EADDRINUSE || attempt == EPHEMERAL_ATTEMPTS) {
                        throw CmWait.callFailed("rdma_bind_addr", e, where);
                    }
                }
            }
            cleanup.onClose(listener::destroy);
            port = listener.localPort();
            if (spec.connection() == io.jrdma.verbs.QpType.UD) {
                // perftest's UD data connections use the UDP port space (SIDR): a second listener on
                // the same port, whose requests arrive on the same channel.
                CmId udListener = channel.createId(null, PortSpace.UDP, io.jrdma.verbs.QpType.UD);
                cleanup.onClose(udListener::destroy);
                try {
                    udListener.bind(new InetSocketAddress(bind.getAddress(), port));
                    udListener.listen(spec.numQps());
                } catch (RdmaException e) {
                    throw CmWait.callFailed("rdma_bind_addr", e, where + " (UDP port space)");
                }
            }
        } catch (RuntimeException e) {
            cleanup.close();
            throw e;
        }
    }

    /**
     * Listens for a client.
     *
     * @param spec the test (the client must run the same)
     * @param bind the address and port to listen on (port 0 picks one)
     * @return the server
     * @throws ToolFailure when the port is taken or no device serves the address
     */
    public static PerfServer open(PerfSpec spec, InetSocketAddress bind) {
        return new PerfServer(spec, bind);
    }

    /**
     * The port the server listens on.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * Runs the test with the first client.
     *
     * @param reporter where the banner, addresses and rows go
     * @param err where warnings and progress go
     * @param progress whether to show a progress line (stderr is a terminal)
     * @param acceptTimeout how long to wait for the client; zero waits for ever
     * @return what this side measured and saw
     * @throws ToolFailure on any failure of the peer, the connection or the verification
     */
    public PerfRun serve(PerfReporter reporter, PrintStream err, boolean progress, Duration acceptTimeout) {
        try (Cleanup session = new Cleanup()) {
            return PerfSession.server(spec, cm, channel, session, reporter, err, progress, acceptTimeout).run();
        }
    }

    /** Stops listening and releases everything. */
    @Override
    public void close() {
        cleanup.close();
    }
}
