package io.jrdma.tools.rdma;

import java.time.Duration;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmStrings;
import io.jrdma.cm.EventChannel;
import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;

/**
 * Waits for connection-manager events on behalf of a tool and turns the failures a user can cause
 * (no server, a refusing or silent peer, an address no device serves) into one-line
 * {@link ToolFailure}s that name the peer and the rdma_cm event, as rping and perftest print them.
 */
public final class CmWait {

    private CmWait() {
    }

    /**
     * Waits for the next event of a channel; the caller acknowledges it.
     *
     * @param ch the channel
     * @param timeout the longest wait
     * @param waitingFor what the tool waits for, for the message on timeout
     * @return the event
     * @throws ToolFailure when nothing arrives in time
     */
    public static CmEvent next(EventChannel ch, Duration timeout, String waitingFor) {
        try {
            CmEvent e = ch.getEvent(timeout);
            if (e == null) {
                throw new ToolFailure("no " + waitingFor + " within " + seconds(timeout));
            }
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted while waiting for " + waitingFor, e);
        }
    }

    /**
     * Waits for an event of one type, acknowledges it and returns it; any other event is a failure
     * described by {@link #describe}.
     *
     * @param ch the channel
     * @param type the event expected
     * @param timeout the longest wait
     * @param peer the peer as the user named it, e.g. {@code 127.0.0.1:7174}
     * @return the event (acknowledged)
     * @throws ToolFailure on another event or a timeout
     */
    public static CmEvent expect(EventChannel ch, CmEventType type, Duration timeout, String peer) {
        CmEvent e = next(ch, timeout, type.str() + " from " + peer);
        ch.ackEvent(e);
        if (e.type() != type) {
            throw new ToolFailure(describe(e, peer, type));
        }
        return e;
    }

    /**
     * The one-line description of an event that ended a connection attempt.
     *
     * @param e the event
     * @param peer the peer, e.g. {@code 127.0.0.1:7174}
     * @param expected the event the tool waited for
     * @return the message
     */
    public static String describe(CmEvent e, String peer, CmEventType expected) {
        String event = "cma event " + e.type().str() + ", error " + e.status();
        return switch (e.type()) {
            case REJECTED -> event + ": " + peer + " rejected the connection ("
                    + CmStrings.rejectMsg(e.id(), e.status()) + "; is the server running?)";
            case UNREACHABLE -> event + ": " + peer + " is unreachable (no answer to the connection request)";
            case ADDR_ERROR -> event + ": cannot resolve " + peer + " to an RDMA device";
            case ROUTE_ERROR -> event + ": no route to " + peer;
            case CONNECT_ERROR -> event + ": connection to " + peer + " failed";
            case DISCONNECTED -> peer + " disconnected while waiting for " + expected.str();
            case DEVICE_REMOVAL -> "cma detected device removal";
            default -> "unexpected " + e.type().str() + " while waiting for " + expected.str() + " (" + peer + ")";
        };
    }

    /**
     * Describes an rdma_cm call that failed at once (as librdmacm returns an errno), e.g. a refused
     * TCP connection on iWARP or an address no device serves.
     *
     * @param call the librdmacm call, e.g. {@code rdma_connect}
     * @param e the failure
     * @param peer the peer
     * @return a failure to throw
     */
    public static ToolFailure callFailed(String call, RdmaException e, String peer) {
        Errno errno = e.errno();
        String why = switch (errno) {
            case ECONNREFUSED -> peer + " refused the connection (is the server running?)";
            case ETIMEDOUT -> peer + " did not answer in time";
            case EADDRNOTAVAIL -> "no RDMA device serves the address of " + peer;
            case EADDRINUSE -> "the address is already in use";
            case ENODEV -> "no such RDMA device";
            case EHOSTUNREACH, ENETUNREACH -> "no route to " + peer;
            default -> e.getMessage();
        };
        return new ToolFailure(call + ": " + why + " (" + errno + ")", e);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
