package io.jrdma.loop;

import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_READ_RESPONSE_FIRST;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_READ_RESPONSE_LAST;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_READ_RESPONSE_MIDDLE;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_READ_RESPONSE_ONLY;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_WRITE_FIRST;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_WRITE_LAST;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_WRITE_MIDDLE;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_WRITE_ONLY;
import static io.jrdma.internal.roce.IbOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_FIRST;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_LAST;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_LAST_WITH_IMMEDIATE;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_LAST_WITH_INVALIDATE;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_MIDDLE;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_ONLY;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_ONLY_WITH_IMMEDIATE;
import static io.jrdma.internal.roce.IbOpcode.RC_SEND_ONLY_WITH_INVALIDATE;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.capture.RoceFrames;
import io.jrdma.internal.obs.Trace;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.verbs.AccessResult;
import io.jrdma.internal.verbs.MrImpl;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.internal.verbs.SendWqe;
import io.jrdma.internal.verbs.SgCursor;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;

/**
 * What the loop fabric would have put on a wire, had it one: the RoCEv2 packets of each message
 * (requests cut at the path MTU, ACKs, NAKs, RDMA READ responses, atomic ACKs). The loop moves bytes
 * by copying, so these packets exist only as counts ({@code sent_pkts}, {@code rcvd_pkts}, the RNR and
 * retry counters, named as rxe names them) and, when a capture runs on a QP or a device involved, as
 * synthetic packets in its pcap file: IPv4 between the devices' addresses (their GIDs, 127.0.0.1),
 * UDP from {@code 0xC000 | qpn} to 4791, the transport headers rxe would send, the payload, the ICRC.
 * PSNs are each requester's own, counted from its {@code sq_psn}; MSNs the responder's.
 *
 * <p>Engine thread only; allocation-free, and with no capture running it builds no packet.
 */
final class LoopWire {
    /** AETH syndrome of a positive ACK with unlimited credits (IBTA 9.7.5.1, rxe AETH_ACK_UNLIMITED). */
    static final int ACK = 0x1F;
    /** AETH syndrome of an RNR NAK (IBTA 9.7.5.2.8, Table 43: 001 and the 5-bit timer). */
    static final int RNR_NAK = 0x20;
    /** AETH syndrome of a NAK: invalid request (IBTA Table 43: 011 00001). */
    static final int NAK_INVALID_REQUEST = 0x61;
    /** AETH syndrome of a NAK: remote access error (011 00010). */
    static final int NAK_REMOTE_ACCESS = 0x62;
    /** AETH syndrome of a NAK: remote operational error (011 00011). */
    static final int NAK_REMOTE_OPERATIONAL = 0x63;
    /** The UDP port RoCEv2 packets go to. */
    static final int ROCE_PORT = PacketTap.ROCE_PORT;

    private final RoceFrames frames = new RoceFrames();
    private final SgCursor cursor = new SgCursor(32);
    private final PacketTap[] taps = new PacketTap[4];
    private int tapCount;
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

    // ------------------------------------------------------------------------------------------ hooks

    /** The request packets of {@code w}: sent by {@code lq}, received by {@code t} (null: lost or dropped). */
    void request(LoopQp lq, SendWqe w, QpImpl t) {
        int mtu = mtu(lq.qp);
        int n = w.opcode == WrOpcode.RDMA_READ || w.opcode.isAtomic() ? 1 : packets(w.length, mtu);
        boolean first = lq.retriesLeft < 0 && lq.rnrLeft < 0;
        if (first) {
            lq.headPsn = lq.nextPsn;
            lq.nextPsn = (lq.nextPsn + (w.opcode == WrOpcode.RDMA_READ ? packets(w.length, mtu) : n)) & 0xFFFFFF;
        }
        lq.qp.counters().add(Counter.SENT_PKTS, n);
        if (t != null) {
            t.counters().add(Counter.RCVD_PKTS, n);
        }
        if (gatherTaps(lq.qp, t)) {
            captureRequest(lq, w, mtu, t);
        }
    }

    /** The response to a successful RC request: an ACK, the READ response packets or an atomic ACK. */
    void response(QpImpl t, LoopQp lq, SendWqe w) {
        int mtu = mtu(lq.qp);
        int n = w.opcode == WrOpcode.RDMA_READ ? packets(w.length, mtu) : 1;
        t.counters().add(Counter.SENT_PKTS, n);
        lq.qp.counters().add(Counter.RCVD_PKTS, n);
        LoopQp responder = (LoopQp) t.provider();
        responder.msn = (responder.msn + 1) & 0xFFFFFF;
        if (gatherTaps(lq.qp, t)) {
            captureResponse(t, lq, w, mtu, responder.msn);
        }
    }

    /** A NAK or an RNR NAK ({@code syndrome}) from {@code t} to {@code lq}. */
    void nak(QpImpl t, LoopQp lq, int syndrome) {
        t.counters().inc(Counter.SENT_PKTS);
        lq.qp.counters().inc(Counter.RCVD_PKTS);
        if ((syndrome & 0x60) == RNR_NAK) {
            t.counters().inc(Counter.SEND_RNR_ERR);
            lq.qp.counters().inc(Counter.RCVD_RNR_ERR);
        }
        if (gatherTaps(lq.qp, t)) {
            frames.bth(IbOpcode.RC_ACKNOWLEDGE.code(), false, lq.qp.qpNum(), false, lq.headPsn)
                    .aeth(syndrome, ((LoopQp) t.provider()).msn);
            emit(t, lq.qp);
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

    // ------------------------------------------------------------------------------------------ capture

    private static PacketTap deviceTap(QpImpl qp) {
        return ((LoopDevice) qp.deviceImpl().providerDevice()).tap();
    }

    /** Collects the distinct running taps of both QPs and their devices; whether there is any. */
    private boolean gatherTaps(QpImpl a, QpImpl b) {
        tapCount = 0;
        add(a.capture());
        add(deviceTap(a));
        if (b != null) {
            add(b.capture());
            add(deviceTap(b));
        }
        return tapCount > 0;
    }

    private void add(PacketTap t) {
        if (t == null || t.isClosed()) {
            return;
        }
        for (int i = 0; i < tapCount; i++) {
            if (taps[i] == t) {
                return;
            }
        }
        taps[tapCount++] = t;
    }

    private void emit(QpImpl from, QpImpl to) {
        int src = ipv4((LoopDevice) from.deviceImpl().providerDevice());
        int dst = to == null ? src : ipv4((LoopDevice) to.deviceImpl().providerDevice());
        int sport = 0xC000 | from.qpNum() & 0x3FFF;
        for (int i = 0; i < tapCount; i++) {
            frames.emit(taps[i], src, dst, sport, ROCE_PORT);
        }
    }

    private static int ipv4(LoopDevice d) {
        byte[] g = d.gidBytes;
        return (g[12] & 0xff) << 24 | (g[13] & 0xff) << 16 | (g[14] & 0xff) << 8 | (g[15] & 0xff);
    }

    private void captureRequest(LoopQp lq, SendWqe w, int mtu, QpImpl to) {
        QpImpl qp = lq.qp;
        int base = switch (qp.type()) {
            case RC -> IbOpcode.Service.RC.base();
            case UC -> IbOpcode.Service.UC.base();
            case UD -> IbOpcode.Service.UD.base();
        };
        boolean rc = qp.type() == QpType.RC;
        int destQpn = qp.type() == QpType.UD ? w.remoteQpn : qp.attr().destQpNum();
        int psn = lq.headPsn;
        switch (w.opcode) {
            case RDMA_READ -> {
                frames.bth(base | IbOpcode.RC_RDMA_READ_REQUEST.code(), false, destQpn, true, psn)
                        .reth(w.remoteAddr, w.rkey, (int) w.length);
                emit(qp, to);
                return;
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                boolean cas = w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP;
                IbOpcode op = cas ? IbOpcode.RC_COMPARE_SWAP : IbOpcode.RC_FETCH_ADD;
                frames.bth(base | op.code(), false, destQpn, true, psn)
                        .atomicEth(w.remoteAddr, w.rkey, cas ? w.swap : w.compareAdd, cas ? w.compareAdd : 0);
                emit(qp, to);
                return;
            }
            default -> {
                // SEND, WRITE and their variants: below
            }
        }
        boolean write = w.opcode == WrOpcode.RDMA_WRITE || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        boolean imm = w.opcode == WrOpcode.SEND_WITH_IMM || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        boolean inv = w.opcode == WrOpcode.SEND_WITH_INV;
        boolean data = cursor.resetForSend(qp.deviceImpl().memoryTable(), qp.pdImpl(), w) == AccessResult.OK;
        int n = qp.type() == QpType.UD ? 1 : packets(w.length, mtu);
        long left = w.length;
        for (int i = 0; i < n; i++) {
            boolean firstPkt = i == 0;
            boolean last = i == n - 1;
            // The operation as its RC opcode; base | op.code() is the opcode of the QP's transport.
            IbOpcode op;
            if (write) {
                op = n == 1 ? (imm ? RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : RC_RDMA_WRITE_ONLY)
                        : firstPkt ? RC_RDMA_WRITE_FIRST
                        : last ? (imm ? RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : RC_RDMA_WRITE_LAST) : RC_RDMA_WRITE_MIDDLE;
            } else {
                op = n == 1 ? (imm ? RC_SEND_ONLY_WITH_IMMEDIATE : inv ? RC_SEND_ONLY_WITH_INVALIDATE : RC_SEND_ONLY)
                        : firstPkt ? RC_SEND_FIRST
                        : last ? (imm ? RC_SEND_LAST_WITH_IMMEDIATE : inv ? RC_SEND_LAST_WITH_INVALIDATE : RC_SEND_LAST)
                        : RC_SEND_MIDDLE;
            }
            frames.bth(base | op.code(), last && w.solicited(), destQpn, rc && last, psn + i);
            if (qp.type() == QpType.UD) {
                frames.deth(w.remoteQkey < 0 ? qp.attr().qkey() : w.remoteQkey, qp.qpNum());
            }
            if (write && firstPkt) {
                frames.reth(w.remoteAddr, w.rkey, (int) w.length);
            }
            if (last && imm) {
                frames.word(w.immData);
            } else if (last && inv) {
                frames.word(w.invalidateRkey);
            }
            int c = (int) Math.min(left, mtu);
            int at = frames.payload(c);
            if (data) {
                cursor.copyTo(frames.segment(), at, c);
            } else {
                frames.segment().asSlice(at, c).fill((byte) 0);
            }
            left -= c;
            emit(qp, to);
        }
    }

    private void captureResponse(QpImpl t, LoopQp lq, SendWqe w, int mtu, int msn) {
        int requester = lq.qp.qpNum();
        int psn = lq.headPsn;
        if (w.opcode == WrOpcode.RDMA_READ) {
            int n = packets(w.length, mtu);
            MrImpl mr = w.length > 0 ? t.deviceImpl().memoryTable().lookup(w.rkey) : null;
            MemorySegment src = mr == null ? null : mr.segment();
            long off = mr == null ? 0 : mr.offsetOf(w.remoteAddr);
            long left = w.length;
            for (int i = 0; i < n; i++) {
                IbOpcode op = n == 1 ? RC_RDMA_READ_RESPONSE_ONLY : i == 0 ? RC_RDMA_READ_RESPONSE_FIRST
                        : i == n - 1 ? RC_RDMA_READ_RESPONSE_LAST : RC_RDMA_READ_RESPONSE_MIDDLE;
                frames.bth(op.code(), false, requester, false, psn + i);
                if (op != RC_RDMA_READ_RESPONSE_MIDDLE) {
                    frames.aeth(ACK, msn);
                }
                int c = (int) Math.min(left, mtu);
                int at = frames.payload(c);
                if (src != null && c > 0) {
                    MemorySegment.copy(src, off, frames.segment(), at, c);
                }
                off += c;
                left -= c;
                emit(t, lq.qp);
            }
            return;
        }
        if (w.opcode.isAtomic()) {
            frames.bth(IbOpcode.RC_ATOMIC_ACKNOWLEDGE.code(), false, requester, false, psn).aeth(ACK, msn)
                    .atomicAckEth(atomicOriginal);
        } else {
            int last = (psn + packets(w.length, mtu) - 1) & 0xFFFFFF;
            frames.bth(IbOpcode.RC_ACKNOWLEDGE.code(), false, requester, false, last).aeth(ACK, msn);
        }
        emit(t, lq.qp);
    }
}
