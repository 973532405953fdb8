package io.jrdma.tools.cli;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;

/**
 * Turns the I/O exceptions of a tool's connection into the one-line messages the tools print.
 */
public final class Errors {

    private Errors() {
    }

    /**
     * Describes a failed attempt to reach a peer.
     *
     * @param e the exception from connect
     * @param peer the peer as the user gave it, e.g. {@code 127.0.0.1:18515}
     * @return a failure to throw
     */
    public static ToolFailure connectFailed(IOException e, String peer) {
        String why = switch (e) {
            case ConnectException c -> "connection refused by " + peer + " (is the server running?)";
            case NoRouteToHostException n -> "no route to " + peer;
            case UnknownHostException u -> "unknown host " + u.getMessage();
            case SocketTimeoutException t -> peer + " did not answer the connection attempt in time";
            default -> "cannot connect to " + peer + ": " + message(e);
        };
        return new ToolFailure(why, e);
    }

    /**
     * Describes a connection that failed after it was set up.
     *
     * @param e the exception
     * @param peer the peer, e.g. {@code 127.0.0.1:18515}
     * @param stalled whether a watchdog closed the channel because the peer went silent
     * @param stallSeconds the watchdog's limit, for the message
     * @return a failure to throw
     */
    public static ToolFailure connectionFailed(IOException e, String peer, boolean stalled, long stallSeconds) {
        if (stalled) {
            return new ToolFailure(peer + " went silent for " + stallSeconds + " s", e);
        }
        String why = switch (e) {
            case EOFException eof -> peer + " closed the connection unexpectedly";
            case SocketTimeoutException t -> peer + " did not answer in time";
            case PortUnreachableException p -> peer + " is unreachable (port closed)";
            case ClosedChannelException c -> "connection to " + peer + " closed";
            default -> "connection to " + peer + " failed: " + message(e);
        };
        return new ToolFailure(why, e);
    }

    private static String message(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
