package io.jrdma.siw.qp;

import io.jrdma.internal.capture.PacketTap;
import java.time.Duration;

/**
 * What a siw QP needs of its device, and nothing more: its name for logs and traces, the device's
 * running capture, the liveness settings of its links, and where a timed-out link is counted. The device
 * hands one to each QP it creates, so the QP never sees the device (and the device package is not
 * imported here).
 */
public interface QpContext {
    /** The device's name ({@code siw0}). */
    String deviceName();

    /** The device's running capture, or {@code null} (one volatile read). */
    PacketTap tap();

    /** How long a link may stall while the QP waits on its peer; zero: never given up. */
    Duration stall();

    /** TCP keepalive idle time; zero: no keepalive. */
    Duration keepIdle();

    /** TCP keepalive probe interval. */
    Duration keepInterval();

    /** TCP keepalive probes before the connection is given up. */
    int keepCount();

    /** A link was given up on its stall time. */
    void linkTimedOut();
}
