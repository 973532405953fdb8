package io.jrdma.siw.cm;

import io.jrdma.siw.SiwCounters;
import io.jrdma.siw.net.SiwEngine;

/**
 * What a siw CM needs of its device, and nothing more: its name for logs, errors and traces, an engine
 * for a new listener, and the counters its handshakes count in. The device hands one to the CM it
 * creates, so the CM never sees the device.
 */
public interface CmContext {
    /** The device's name ({@code siw0}). */
    String deviceName();

    /** An engine for a new listener (the device's round robin over its engines). */
    SiwEngine nextEngine();

    /** The device's counters: MPA frames and rejects, TERMINATEs sent from a handshake. */
    SiwCounters counters();
}
