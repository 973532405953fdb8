package io.jrdma.loop;

import io.jrdma.internal.obs.Trace;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.WrOpcode;

/**
 * What the loop fabric would have put on a wire, had it one: the RoCEv2 packets of each message
 * (requests cut at the path MTU, ACKs, NAKs, RDMA READ responses, atomic ACKs). The loop moves bytes
 * by copying, so these packets exist only as counts ({@code sent_pkts}, {@code rcvd_pkts}, the RNR and
 * retry counters, named as rxe names them) and, when a capture is on, as synthetic packets in a pcap
 * file. PSNs are the requester's own: each QP numbers its requests from its {@code sq_psn}.
 *
 * <p>Engine thread only; allocation-free when no capture runs.
 */
final class LoopWire {
    /** AETH syndrome of an RNR NAK (IBTA 9.7.5.2.8, Table 43: 001 and the 5-bit timer). */
    static final int RNR_NAK = 0x20;
    /** AETH syndrome of a NAK: invalid request (IBTA Table 43: 011 00001). */
    static final int NAK_INVALID_REQUEST = 0x61;
    /** AETH syndrome of a NAK: remote access error (011 00010). */
    static final int NAK_REMOTE_ACCESS = 0x62;
    /** AETH syndrome of a NAK: remote operational error (011 00011). */
    static final int NAK_REMOTE_OPERATIONAL = 0x63;

    /** The original value an atomic returned, for the atomic ACK of its capture. */
    private long atomicOriginal;

    /** The number of packets a message of {@code length} bytes takes at {@code mtu} (at least one). */
    static int packets(long length, int mtu) {
        return length <= 0 ? 1 : (int) ((length + mtu - 1) / mtu);
    }

    static int mtu(QpImpl qp) {
        if (qp.type() != QpType.UD && qp.attr().pathMtu() != null) {
            return qp.attr().pathMtu().bytes();
        }
        return qp.deviceImpl().portAttributes().activeMtu().bytes();
    }

    /** The request packets of {@code w}: sent by {@code lq}, received by {@code t} (null: lost or dropped). */
    void request(LoopQp lq, SendWqe w, QpImpl t) {
        int n = w.opcode == WrOpcode.RDMA_READ || w.opcode.isAtomic() ? 1 : packets(w.length, mtu(lq.qp));
        boolean first = lq.retriesLeft < 0 && lq.rnrLeft < 0;
        if (first) {
            lq.headPsn = lq.nextPsn;
            lq.nextPsn = (lq.nextPsn + (w.opcode == WrOpcode.RDMA_READ ? packets(w.length, mtu(lq.qp)) : n))
                    & 0xFFFFFF;
        }
        lq.qp.counters().add(Counter.SENT_PKTS, n);
        if (t != null) {
            t.counters().add(Counter.RCVD_PKTS, n);
        }
    }

    /** The response to a successful RC request: an ACK, the READ response packets or an atomic ACK. */
    void response(QpImpl t, LoopQp lq, SendWqe w) {
        int n = w.opcode == WrOpcode.RDMA_READ ? packets(w.length, mtu(lq.qp)) : 1;
        t.counters().add(Counter.SENT_PKTS, n);
        lq.qp.counters().add(Counter.RCVD_PKTS, n);
    }

    /** A NAK or an RNR NAK ({@code syndrome}) from {@code t} to {@code lq}. */
    void nak(QpImpl t, LoopQp lq, int syndrome) {
        t.counters().inc(Counter.SENT_PKTS);
        lq.qp.counters().inc(Counter.RCVD_PKTS);
        if ((syndrome & 0x60) == RNR_NAK) {
            t.counters().inc(Counter.SEND_RNR_ERR);
            lq.qp.counters().inc(Counter.RCVD_RNR_ERR);
        }
    }

    /** The head WQE of {@code lq} will be sent again after its ACK timeout. */
    void retry(LoopQp lq) {
        lq.qp.counters().inc(Counter.COMPLETER_RETRY_ERR);
        Trace.retransmit(lq.qp.deviceImpl().name(), lq.qp.qpNum(), lq.headPsn, "no response", lq.retriesLeft);
    }

    /** The head WQE of {@code lq} waits {@code nanos} after an RNR NAK. */
    void rnrWait(LoopQp lq, long nanos) {
        Trace.rnrWait(lq.qp.deviceImpl().name(), lq.qp.qpNum(), lq.headPsn, nanos, lq.rnrLeft);
    }

    /** Remembers the value an atomic found, for its ACK. */
    void atomicResult(long original) {
        this.atomicOriginal = original;
    }
}
