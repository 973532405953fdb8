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

    /** Empty attributes with an empty mask. */
    public QpAttr() {
    }

    /** A copy of {@code other}, mask included. */
    public QpAttr(QpAttr other) {
        copyFrom(other);
    }

    /** Copies every field and the mask of {@code o}. */
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

    /** The mask of the fields that were set. */
    public int mask() {
        return mask;
    }

    /** Whether all bits of {@code bits} are set in the mask. */
    public boolean has(int bits) {
        return (mask & bits) == bits;
    }

    /** Clears the mask (the values stay). */
    public QpAttr clearMask() {
        mask = 0;
        return this;
    }

    /** Sets the target state. */
    public QpAttr qpState(QpState s) {
        qpState = s;
        mask |= QpAttrMask.STATE;
        return this;
    }

    /** Sets the state the caller believes the QP is in. */
    public QpAttr curQpState(QpState s) {
        curQpState = s;
        mask |= QpAttrMask.CUR_STATE;
        return this;
    }

    /** Sets the path MTU. */
    public QpAttr pathMtu(Mtu m) {
        pathMtu = m;
        mask |= QpAttrMask.PATH_MTU;
        return this;
    }

    /** Sets the Q_Key (UD). */
    public QpAttr qkey(int k) {
        qkey = k;
        mask |= QpAttrMask.QKEY;
        return this;
    }

    /** Sets the receive PSN (24 bits). */
    public QpAttr rqPsn(int psn) {
        rqPsn = psn & 0xFFFFFF;
        mask |= QpAttrMask.RQ_PSN;
        return this;
    }

    /** Sets the send PSN (24 bits). */
    public QpAttr sqPsn(int psn) {
        sqPsn = psn & 0xFFFFFF;
        mask |= QpAttrMask.SQ_PSN;
        return this;
    }

    /** Sets the destination QP number (RC/UC). */
    public QpAttr destQpNum(int qpn) {
        destQpNum = qpn;
        mask |= QpAttrMask.DEST_QPN;
        return this;
    }

    /** Sets the remote access the QP allows ({@link Access} REMOTE_* bits). */
    public QpAttr qpAccessFlags(int flags) {
        qpAccessFlags = flags;
        mask |= QpAttrMask.ACCESS_FLAGS;
        return this;
    }

    /** Sets the capacities (only a resize of the queues; jrdma accepts it only unchanged). */
    public QpAttr cap(QpCap c) {
        cap = c;
        mask |= QpAttrMask.CAP;
        return this;
    }

    /** Sets the primary address vector. */
    public QpAttr ahAttr(AhAttr a) {
        ahAttr = a;
        mask |= QpAttrMask.AV;
        return this;
    }

    /** Sets the P_Key index. */
    public QpAttr pkeyIndex(int i) {
        pkeyIndex = i;
        mask |= QpAttrMask.PKEY_INDEX;
        return this;
    }

    /** Asks for an SQ_DRAINED event when the QP reaches SQD. */
    public QpAttr sqdAsyncNotify(boolean b) {
        sqdAsyncNotify = b;
        mask |= QpAttrMask.EN_SQD_ASYNC_NOTIFY;
        return this;
    }

    /** Sets the outstanding RDMA READ/atomic requests this QP may issue (ORD). */
    public QpAttr maxRdAtomic(int n) {
        maxRdAtomic = n;
        mask |= QpAttrMask.MAX_QP_RD_ATOMIC;
        return this;
    }

    /** Sets the outstanding RDMA READ/atomic requests this QP accepts as responder (IRD). */
    public QpAttr maxDestRdAtomic(int n) {
        maxDestRdAtomic = n;
        mask |= QpAttrMask.MAX_DEST_RD_ATOMIC;
        return this;
    }

    /** Sets the minimum RNR NAK timer (IBTA 5-bit code, see {@link RnrTimer}). */
    public QpAttr minRnrTimer(int code) {
        minRnrTimer = code;
        mask |= QpAttrMask.MIN_RNR_TIMER;
        return this;
    }

    /** Sets the port number (1-based). */
    public QpAttr portNum(int p) {
        portNum = p;
        mask |= QpAttrMask.PORT;
        return this;
    }

    /** Sets the local ACK timeout: 4.096 µs × 2^t, 0 = infinite. */
    public QpAttr timeout(int t) {
        timeout = t;
        mask |= QpAttrMask.TIMEOUT;
        return this;
    }

    /** Sets the transport retry count (3 bits). */
    public QpAttr retryCnt(int n) {
        retryCnt = n;
        mask |= QpAttrMask.RETRY_CNT;
        return this;
    }

    /** Sets the RNR retry count (3 bits, 7 = retry forever). */
    public QpAttr rnrRetry(int n) {
        rnrRetry = n;
        mask |= QpAttrMask.RNR_RETRY;
        return this;
    }

    /** The target state. */
    public QpState qpState() {
        return qpState;
    }

    /** The state the caller believes the QP is in. */
    public QpState curQpState() {
        return curQpState;
    }

    /** The path MTU. */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /** The Q_Key. */
    public int qkey() {
        return qkey;
    }

    /** The receive PSN. */
    public int rqPsn() {
        return rqPsn;
    }

    /** The send PSN. */
    public int sqPsn() {
        return sqPsn;
    }

    /** The destination QP number. */
    public int destQpNum() {
        return destQpNum;
    }

    /** The remote access flags. */
    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    /** The capacities. */
    public QpCap cap() {
        return cap;
    }

    /** The primary address vector. */
    public AhAttr ahAttr() {
        return ahAttr;
    }

    /** The P_Key index. */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** Whether SQ_DRAINED is asked for. */
    public boolean sqdAsyncNotify() {
        return sqdAsyncNotify;
    }

    /** The ORD. */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /** The IRD. */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /** The minimum RNR NAK timer code. */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** The port number. */
    public int portNum() {
        return portNum;
    }

    /** The local ACK timeout exponent. */
    public int timeout() {
        return timeout;
    }

    /** The transport retry count. */
    public int retryCnt() {
        return retryCnt;
    }

    /** The RNR retry count. */
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
