package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A QP's attributes between jrdma and {@code struct ibv_qp_attr} / {@code ibv_qp_cap}: writing them, the
 * checks made before the kernel sees them (it takes some values unchecked, or refuses them with a bare
 * EINVAL), and the capacities a new QP has.
 */
final class NativeQpAttrs {
    private NativeQpAttrs() {
    }

    /**
     * The capacities the QP has: what {@code ibv_create_qp} wrote back, or more where {@code ibv_query_qp}
     * reports more. Linux rxe makes each work queue a power of two slots minus one and reports that size
     * only to a query (a QP created with 4 send WRs holds 7).
     */
    static QpCap grantedCap(Arena a, MemorySegment qp, MemorySegment ia) throws Throwable {
        int[] c = new int[5];
        long[] off = {Ibv.CAP_MAX_SEND_WR, Ibv.CAP_MAX_RECV_WR, Ibv.CAP_MAX_SEND_SGE, Ibv.CAP_MAX_RECV_SGE,
            Ibv.CAP_MAX_INLINE};
        for (int i = 0; i < 5; i++) {
            c[i] = ia.get(JAVA_INT, Ibv.QPI_CAP + off[i]);
        }
        MemorySegment at = a.allocate(Ibv.QP_ATTR_SIZE, 8);
        MemorySegment qia = a.allocate(Ibv.QP_INIT_ATTR_SIZE, 8);
        int rc = (int) Ibv.QUERY_QP.invokeExact(qp, at, QpAttrMask.CAP, qia);
        if (rc == 0) {
            for (int i = 0; i < 5; i++) {
                c[i] = Math.max(c[i], at.get(JAVA_INT, Ibv.QPA_CAP + off[i]));
            }
        }
        return new QpCap(c[0], c[1], c[2], c[3], c[4]);
    }

    /** The device limits a QP's capacities must keep (the kernel refuses more with a bare EINVAL). */
    static void checkCap(DeviceAttributes da, QpCap c) {
        if (c.maxSendWr() < 1) {
            throw new IllegalArgumentException("max_send_wr " + c.maxSendWr() + ": a QP needs a send queue");
        }
        if (c.maxSendWr() > da.maxQpWr() || c.maxRecvWr() > da.maxQpWr()) {
            throw new IllegalArgumentException("max_send_wr " + c.maxSendWr() + " / max_recv_wr " + c.maxRecvWr()
                    + " exceed the device's max_qp_wr " + da.maxQpWr());
        }
        if (c.maxSendSge() > da.maxSge() || c.maxRecvSge() > da.maxSge()) {
            throw new IllegalArgumentException("max_send_sge " + c.maxSendSge() + " / max_recv_sge " + c.maxRecvSge()
                    + " exceed the device's max_sge " + da.maxSge());
        }
        if (c.maxInlineData() > da.maxInlineData()) {
            throw new IllegalArgumentException("max_inline_data " + c.maxInlineData() + " exceeds the device's "
                    + da.maxInlineData() + " inline bytes");
        }
    }

    /** Writes {@code c} as the {@code ibv_qp_cap} at {@code off} of {@code s}. */
    static void writeCap(MemorySegment s, long off, QpCap c) {
        s.set(JAVA_INT, off + Ibv.CAP_MAX_SEND_WR, c.maxSendWr());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_RECV_WR, c.maxRecvWr());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_SEND_SGE, c.maxSendSge());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_RECV_SGE, c.maxRecvSge());
        s.set(JAVA_INT, off + Ibv.CAP_MAX_INLINE, c.maxInlineData());
    }

    /** The range checks of the attributes in {@code mask}: IBTA's field widths and the device's limits. */
    static void validate(QpAttr a, int mask, DeviceAttributes da, String what) {
        if ((mask & QpAttrMask.STATE) != 0 && a.qpState() == null) {
            throw new IllegalArgumentException(what + ": STATE set without a state");
        }
        if ((mask & QpAttrMask.CUR_STATE) != 0 && a.curQpState() == null) {
            throw new IllegalArgumentException(what + ": CUR_STATE set without a state");
        }
        if ((mask & QpAttrMask.PORT) != 0 && (a.portNum() < 1 || a.portNum() > da.physPortCnt())) {
            throw new IllegalArgumentException(what + ": port " + a.portNum() + " does not exist (the device has "
                    + da.physPortCnt() + ")");
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0 && (a.qpAccessFlags() & ~Access.ALL) != 0) {
            throw new IllegalArgumentException(what + ": unknown access flags 0x"
                    + Integer.toHexString(a.qpAccessFlags() & ~Access.ALL));
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0 && a.pathMtu() == null) {
            throw new IllegalArgumentException(what + ": PATH_MTU set without a path MTU");
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0
                && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > da.maxQpInitRdAtom())) {
            throw new IllegalArgumentException(what + ": max_rd_atomic " + a.maxRdAtomic() + " outside 0.."
                    + da.maxQpInitRdAtom());
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0
                && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > da.maxQpRdAtom())) {
            throw new IllegalArgumentException(what + ": max_dest_rd_atomic " + a.maxDestRdAtomic() + " outside 0.."
                    + da.maxQpRdAtom());
        }
        bits(what, mask, QpAttrMask.TIMEOUT, a.timeout(), 5, "timeout");
        bits(what, mask, QpAttrMask.RETRY_CNT, a.retryCnt(), 3, "retry_cnt");
        bits(what, mask, QpAttrMask.RNR_RETRY, a.rnrRetry(), 3, "rnr_retry");
        bits(what, mask, QpAttrMask.MIN_RNR_TIMER, a.minRnrTimer(), 5, "min_rnr_timer");
        if ((mask & QpAttrMask.AV) != 0 && a.ahAttr() == null) {
            throw new IllegalArgumentException(what + ": AV set without an address vector");
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0 && (a.destQpNum() & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException(what + ": dest qpn 0x" + Integer.toHexString(a.destQpNum())
                    + " is 24 bits");
        }
        if ((mask & QpAttrMask.CAP) != 0 && a.cap() == null) {
            throw new IllegalArgumentException(what + ": CAP set without capacities");
        }
    }

    private static void bits(String what, int mask, int bit, int value, int width, String name) {
        if ((mask & bit) != 0 && (value < 0 || value >= 1 << width)) {
            throw new IllegalArgumentException(what + ": " + name + " " + value + " is " + width + " bits");
        }
    }

    /** Writes the attributes of {@code a} into the {@code ibv_qp_attr} {@code s}. */
    static void write(MemorySegment s, QpAttr a) {
        if (a.qpState() != null) {
            s.set(JAVA_INT, Ibv.QPA_STATE, a.qpState().ordinal());
        }
        if (a.curQpState() != null) {
            s.set(JAVA_INT, Ibv.QPA_CUR_STATE, a.curQpState().ordinal());
        }
        if (a.pathMtu() != null) {
            s.set(JAVA_INT, Ibv.QPA_PATH_MTU, a.pathMtu().value());
        }
        s.set(JAVA_INT, Ibv.QPA_QKEY, a.qkey());
        s.set(JAVA_INT, Ibv.QPA_RQ_PSN, a.rqPsn());
        s.set(JAVA_INT, Ibv.QPA_SQ_PSN, a.sqPsn());
        s.set(JAVA_INT, Ibv.QPA_DEST_QP_NUM, a.destQpNum());
        s.set(JAVA_INT, Ibv.QPA_ACCESS, a.qpAccessFlags());
        if (a.cap() != null) {
            writeCap(s, Ibv.QPA_CAP, a.cap());
        }
        if (a.ahAttr() != null) {
            NativePd.writeAh(s.asSlice(Ibv.QPA_AH, Ibv.AH_ATTR_SIZE), a.ahAttr());
        }
        s.set(JAVA_SHORT, Ibv.QPA_PKEY_INDEX, (short) a.pkeyIndex());
        s.set(JAVA_BYTE, Ibv.QPA_SQD_NOTIFY, (byte) (a.sqdAsyncNotify() ? 1 : 0));
        s.set(JAVA_BYTE, Ibv.QPA_MAX_RD_ATOMIC, (byte) a.maxRdAtomic());
        s.set(JAVA_BYTE, Ibv.QPA_MAX_DEST_RD_ATOMIC, (byte) a.maxDestRdAtomic());
        s.set(JAVA_BYTE, Ibv.QPA_MIN_RNR_TIMER, (byte) a.minRnrTimer());
        s.set(JAVA_BYTE, Ibv.QPA_PORT_NUM, (byte) a.portNum());
        s.set(JAVA_BYTE, Ibv.QPA_TIMEOUT, (byte) a.timeout());
        s.set(JAVA_BYTE, Ibv.QPA_RETRY_CNT, (byte) a.retryCnt());
        s.set(JAVA_BYTE, Ibv.QPA_RNR_RETRY, (byte) a.rnrRetry());
    }
}
