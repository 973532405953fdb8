package io.jrdma.verbs;

/**
 * Queue-pair attributes with their mask ({@code struct ibv_qp_attr} + {@code attr_mask}). Each
 * setter records its {@link QpAttrMask} bit, so the mask always says which fields are meant:
 *
 * <pre>{@code
 * qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
 *         .qpAccessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
 * }</pre>
 *
 * <p>{@link QueuePair#query()} returns a fully populated instance.
 */
public final class QpAttr {
    private int mask;
    private QpState qpState;
    private QpState curQpState;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int qpAccessFlags;
    private QpCap cap;
    private AhAttr ahAttr;
    private int pkeyIndex;
    private boolean sqdAsyncNotify;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;

    /**
     * Empty attributes with an empty mask. Linux: a zeroed {@code struct ibv_qp_attr} and an {@code attr_mask} of 0.
     */
    public QpAttr() {
    }

    /** A copy of {@code other}, mask included. A jrdma helper (a copy of {@code struct ibv_qp_attr} and its mask). */
    public QpAttr(QpAttr other) {
        copyFrom(other);
    }

    /**
     * Copies every field and the mask of {@code o}. A jrdma helper (a copy of {@code struct ibv_qp_attr} and its mask).
     */
    public QpAttr copyFrom(QpAttr o) {
        mask = o.mask;
        qpState = o.qpState;
        curQpState = o.curQpState;
        pathMtu = o.pathMtu;
        qkey = o.qkey;
        rqPsn = o.rqPsn;
        sqPsn = o.sqPsn;
        destQpNum = o.destQpNum;
        qpAccessFlags = o.qpAccessFlags;
        cap = o.cap;
        ahAttr = o.ahAttr;
        pkeyIndex = o.pkeyIndex;
        sqdAsyncNotify = o.sqdAsyncNotify;
        maxRdAtomic = o.maxRdAtomic;
        maxDestRdAtomic = o.maxDestRdAtomic;
        minRnrTimer = o.minRnrTimer;
        portNum = o.portNum;
        timeout = o.timeout;
        retryCnt = o.retryCnt;
        rnrRetry = o.rnrRetry;
        return this;
    }

    /**
     * The mask of the fields that were set. Linux: the {@code attr_mask} of {@code ibv_modify_qp} ({@link QpAttrMask}).
     */
    public int mask() {
        return mask;
    }

    /** Whether all bits of {@code bits} are set in the mask. Linux: a test on the {@code attr_mask}. */
    public boolean has(int bits) {
        return (mask & bits) == bits;
    }

    /** Clears the mask (the values stay). Linux: an {@code attr_mask} of 0. */
    public QpAttr clearMask() {
        mask = 0;
        return this;
    }

    /** Sets the target state. Linux: {@code ibv_qp_attr.qp_state}, mask {@code IBV_QP_STATE}. */
    public QpAttr qpState(QpState s) {
        qpState = s;
        mask |= QpAttrMask.STATE;
        return this;
    }

    /**
     * Sets the state the caller believes the QP is in. Linux: {@code ibv_qp_attr.cur_qp_state}, mask
     * {@code IBV_QP_CUR_STATE}.
     */
    public QpAttr curQpState(QpState s) {
        curQpState = s;
        mask |= QpAttrMask.CUR_STATE;
        return this;
    }

    /** Sets the path MTU. Linux: {@code ibv_qp_attr.path_mtu}, mask {@code IBV_QP_PATH_MTU}. */
    public QpAttr pathMtu(Mtu m) {
        pathMtu = m;
        mask |= QpAttrMask.PATH_MTU;
        return this;
    }

    /** Sets the Q_Key (UD). Linux: {@code ibv_qp_attr.qkey}, mask {@code IBV_QP_QKEY}. */
    public QpAttr qkey(int k) {
        qkey = k;
        mask |= QpAttrMask.QKEY;
        return this;
    }

    /** Sets the receive PSN (24 bits). Linux: {@code ibv_qp_attr.rq_psn}, mask {@code IBV_QP_RQ_PSN}. */
    public QpAttr rqPsn(int psn) {
        rqPsn = psn & 0xFFFFFF;
        mask |= QpAttrMask.RQ_PSN;
        return this;
    }

    /** Sets the send PSN (24 bits). Linux: {@code ibv_qp_attr.sq_psn}, mask {@code IBV_QP_SQ_PSN}. */
    public QpAttr sqPsn(int psn) {
        sqPsn = psn & 0xFFFFFF;
        mask |= QpAttrMask.SQ_PSN;
        return this;
    }

    /** Sets the destination QP number (RC/UC). Linux: {@code ibv_qp_attr.dest_qp_num}, mask {@code IBV_QP_DEST_QPN}. */
    public QpAttr destQpNum(int qpn) {
        destQpNum = qpn;
        mask |= QpAttrMask.DEST_QPN;
        return this;
    }

    /**
     * Sets the remote access the QP allows ({@link Access} REMOTE_* bits). Linux: {@code ibv_qp_attr.qp_access_flags},
     * mask {@code IBV_QP_ACCESS_FLAGS}.
     */
    public QpAttr qpAccessFlags(int flags) {
        qpAccessFlags = flags;
        mask |= QpAttrMask.ACCESS_FLAGS;
        return this;
    }

    /**
     * Sets the capacities (only a resize of the queues; jrdma accepts it only unchanged). Linux:
     * {@code ibv_qp_attr.cap}, mask {@code IBV_QP_CAP}.
     */
    public QpAttr cap(QpCap c) {
        cap = c;
        mask |= QpAttrMask.CAP;
        return this;
    }

    /** Sets the primary address vector. Linux: {@code ibv_qp_attr.ah_attr}, mask {@code IBV_QP_AV}. */
    public QpAttr ahAttr(AhAttr a) {
        ahAttr = a;
        mask |= QpAttrMask.AV;
        return this;
    }

    /** Sets the P_Key index. Linux: {@code ibv_qp_attr.pkey_index}, mask {@code IBV_QP_PKEY_INDEX}. */
    public QpAttr pkeyIndex(int i) {
        pkeyIndex = i;
        mask |= QpAttrMask.PKEY_INDEX;
        return this;
    }

    /**
     * Asks for an SQ_DRAINED event when the QP reaches SQD. Linux: {@code ibv_qp_attr.en_sqd_async_notify}, mask
     * {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}.
     */
    public QpAttr sqdAsyncNotify(boolean b) {
        sqdAsyncNotify = b;
        mask |= QpAttrMask.EN_SQD_ASYNC_NOTIFY;
        return this;
    }

    /**
     * Sets the outstanding RDMA READ/atomic requests this QP may issue (ORD). Linux: {@code ibv_qp_attr.max_rd_atomic},
     * mask {@code IBV_QP_MAX_QP_RD_ATOMIC}.
     */
    public QpAttr maxRdAtomic(int n) {
        maxRdAtomic = n;
        mask |= QpAttrMask.MAX_QP_RD_ATOMIC;
        return this;
    }

    /**
     * Sets the outstanding RDMA READ/atomic requests this QP accepts as responder (IRD). Linux:
     * {@code ibv_qp_attr.max_dest_rd_atomic}, mask {@code IBV_QP_MAX_DEST_RD_ATOMIC}.
     */
    public QpAttr maxDestRdAtomic(int n) {
        maxDestRdAtomic = n;
        mask |= QpAttrMask.MAX_DEST_RD_ATOMIC;
        return this;
    }

    /**
     * Sets the minimum RNR NAK timer (IBTA 5-bit code, see {@link RnrTimer}). Linux: {@code ibv_qp_attr.min_rnr_timer},
     * mask {@code IBV_QP_MIN_RNR_TIMER}.
     */
    public QpAttr minRnrTimer(int code) {
        minRnrTimer = code;
        mask |= QpAttrMask.MIN_RNR_TIMER;
        return this;
    }

    /** Sets the port number (1-based). Linux: {@code ibv_qp_attr.port_num}, mask {@code IBV_QP_PORT}. */
    public QpAttr portNum(int p) {
        portNum = p;
        mask |= QpAttrMask.PORT;
        return this;
    }

    /**
     * Sets the local ACK timeout: 4.096 µs × 2^t, 0 = infinite. Linux: {@code ibv_qp_attr.timeout}, mask
     * {@code IBV_QP_TIMEOUT}.
     */
    public QpAttr timeout(int t) {
        timeout = t;
        mask |= QpAttrMask.TIMEOUT;
        return this;
    }

    /** Sets the transport retry count (3 bits). Linux: {@code ibv_qp_attr.retry_cnt}, mask {@code IBV_QP_RETRY_CNT}. */
    public QpAttr retryCnt(int n) {
        retryCnt = n;
        mask |= QpAttrMask.RETRY_CNT;
        return this;
    }

    /**
     * Sets the RNR retry count (3 bits, 7 = retry forever). Linux: {@code ibv_qp_attr.rnr_retry}, mask
     * {@code IBV_QP_RNR_RETRY}.
     */
    public QpAttr rnrRetry(int n) {
        rnrRetry = n;
        mask |= QpAttrMask.RNR_RETRY;
        return this;
    }

    /** The target state. Linux: {@code ibv_qp_attr.qp_state}. */
    public QpState qpState() {
        return qpState;
    }

    /** The state the caller believes the QP is in. Linux: {@code ibv_qp_attr.cur_qp_state}. */
    public QpState curQpState() {
        return curQpState;
    }

    /** The path MTU. Linux: {@code ibv_qp_attr.path_mtu}. */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /** The Q_Key. Linux: {@code ibv_qp_attr.qkey}. */
    public int qkey() {
        return qkey;
    }

    /** The receive PSN. Linux: {@code ibv_qp_attr.rq_psn}. */
    public int rqPsn() {
        return rqPsn;
    }

    /** The send PSN. Linux: {@code ibv_qp_attr.sq_psn}. */
    public int sqPsn() {
        return sqPsn;
    }

    /** The destination QP number. Linux: {@code ibv_qp_attr.dest_qp_num}. */
    public int destQpNum() {
        return destQpNum;
    }

    /** The remote access flags. Linux: {@code ibv_qp_attr.qp_access_flags}. */
    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    /** The capacities. Linux: {@code ibv_qp_attr.cap}. */
    public QpCap cap() {
        return cap;
    }

    /** The primary address vector. Linux: {@code ibv_qp_attr.ah_attr}. */
    public AhAttr ahAttr() {
        return ahAttr;
    }

    /** The P_Key index. Linux: {@code ibv_qp_attr.pkey_index}. */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** Whether SQ_DRAINED is asked for. Linux: {@code ibv_qp_attr.en_sqd_async_notify}. */
    public boolean sqdAsyncNotify() {
        return sqdAsyncNotify;
    }

    /** The ORD. Linux: {@code ibv_qp_attr.max_rd_atomic}. */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /** The IRD. Linux: {@code ibv_qp_attr.max_dest_rd_atomic}. */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /** The minimum RNR NAK timer code. Linux: {@code ibv_qp_attr.min_rnr_timer}. */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** The port number. Linux: {@code ibv_qp_attr.port_num}. */
    public int portNum() {
        return portNum;
    }

    /** The local ACK timeout exponent. Linux: {@code ibv_qp_attr.timeout}. */
    public int timeout() {
        return timeout;
    }

    /** The transport retry count. Linux: {@code ibv_qp_attr.retry_cnt}. */
    public int retryCnt() {
        return retryCnt;
    }

    /** The RNR retry count. Linux: {@code ibv_qp_attr.rnr_retry}. */
    public int rnrRetry() {
        return rnrRetry;
    }

    @Override
    public String toString() {
        return "QpAttr[mask=" + QpAttrMask.toString(mask) + ", state=" + qpState + ", mtu=" + pathMtu + ", destQpn=0x"
                + Integer.toHexString(destQpNum) + ", rqPsn=" + rqPsn + ", sqPsn=" + sqPsn + ", access="
                + Access.toString(qpAccessFlags) + ", ord=" + maxRdAtomic + ", ird=" + maxDestRdAtomic + ", timeout="
                + timeout + ", retry=" + retryCnt + ", rnrRetry=" + rnrRetry + ", minRnrTimer=" + minRnrTimer + "]";
    }
}
