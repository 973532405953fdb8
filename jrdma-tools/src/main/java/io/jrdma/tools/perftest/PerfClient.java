package io.jrdma.tools.perftest;

import java.io.PrintStream;
import java.net.InetSocketAddress;

import io.jrdma.cm.RdmaCm;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.rdma.Cleanup;
import io.jrdma.tools.rdma.ToolDevices;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;

/** The client side of a perftest tool: connects to a server and runs the test. */
public final class PerfClient {

    /** Connection attempts when the local port drawn is already taken by a host socket. */
    static final int LOCAL_PORT_ATTEMPTS = 5;

    private PerfClient() {
    }

    /**
     * Runs the test against a server (jrdma's or Linux perftest's with {@code -R}).
     *
     * @param spec the test (the server must run the same)
     * @param server the server's address and test port
     * @param source the source address, or null to pick by route
     * @param reporter where the banner, addresses and rows go
     * @param err where warnings and progress go
     * @param progress whether to show a progress line
     * @return what this side measured and saw
     * @throws ToolFailure when the server is unreachable, refuses, fails or goes silent, or the
     *     verification fails
     */
    public static PerfRun run(PerfSpec spec, InetSocketAddress server, InetSocketAddress source,
            PerfReporter reporter, PrintStream err, boolean progress) {
        for (int attempt = 1;; attempt++) {
            PerfSession session = null;
            try (Cleanup c = new Cleanup()) {
                RdmaCm cm = c.add(ToolDevices.openCm(spec.device()));
                session = PerfSession.client(spec, cm, c, server, source, reporter, err, progress);
                return session.run();
            } catch (ToolFailure f) {
                // The connection manager draws the local port from the ephemeral range the host's own
                // sockets share; a clash before anything was exchanged is worth another draw.
                boolean clash = f.getCause() instanceof RdmaException r && r.errno() == Errno.EADDRINUSE;
                if (!clash || session == null || session.controlConnected() || attempt == LOCAL_PORT_ATTEMPTS) {
                    throw f;
                }
            }
        }
    }
}
