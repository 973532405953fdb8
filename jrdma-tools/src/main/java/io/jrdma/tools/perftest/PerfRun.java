package io.jrdma.tools.perftest;

import java.util.List;

import io.jrdma.tools.perf.PeerAddress;
import io.jrdma.tools.perf.PerfResult;

/**
 * What one side of a perftest-style run produced: its result rows (what it printed; a passive
 * bandwidth server prints the client's report), the QP addresses exchanged, and what the
 * verification found.
 *
 * @param test the tool
 * @param server whether this is the server side
 * @param device the device the run used, e.g. {@code siw0}
 * @param rows the result rows, one per size (possibly none, e.g. an {@code ib_read_lat} server)
 * @param local this side's QP addresses
 * @param remote the peer's QP addresses
 * @param verification what this side found in the data that landed on it
 * @param qpTimeout the first data QP's ACK timeout as queried after the run ({@code -u}), or -1 for an
 *     unreliable QP
 * @param trafficClass the traffic class of the first data QP's path ({@code -T}), or -1 for an unreliable QP
 */
public record PerfRun(PerfTest test, boolean server, String device, List<PerfResult> rows, List<PeerAddress> local,
        List<PeerAddress> remote, Verification verification, int qpTimeout, int trafficClass) {

    /**
     * Copies the lists.
     *
     * @throws IllegalArgumentException when a required field is missing
     */
    public PerfRun {
        if (test == null || rows == null || local == null || remote == null || verification == null) {
            throw new IllegalArgumentException("test, rows, addresses and verification are required");
        }
        rows = List.copyOf(rows);
        local = List.copyOf(local);
        remote = List.copyOf(remote);
    }
}
