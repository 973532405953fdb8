package com.ibm.disni.verbs;

/**
 * Queue-pair attributes ({@code struct ibv_qp_attr}) with their mask. DiSNI 2.1 has no verb that takes or returns
 * them; the class is kept for applications that name it.
 */
@SuppressWarnings("checkstyle:methodname")
public class IbvQpAttr {
    protected int qp_state;
    protected int qp_access_flags;
    protected byte max_dest_rd_atomic;
    protected byte port_num;
    protected int path_mtu;
    protected int cur_qp_state;
    protected int path_mig_state;
    protected int qkey;
    protected int rq_psn;
    protected int sq_psn;
    protected int dest_qp_num;
    protected short pkey_index;
    protected short alt_pkey_index;
    protected byte en_sqd_async_notify;
    protected byte sq_draining;
    protected byte max_rd_atomic;
    protected byte min_rnr_timer;
    protected byte timeout;
    protected byte retry_cnt;
    protected byte rnr_retry;
    protected byte alt_port_num;
    protected byte alt_timeout;
    protected int qpAttrMask;
    protected IbvQPCap cap;
    protected IbvAhAttr ah_attr;
    protected IbvAhAttr alt_ah_attr;

    /**
     * Attributes over the given parts.
     *
     * @param ah_attr the primary address vector
     * @param alt_ah_attr the alternate address vector
     * @param cap the capacities
     */
    protected IbvQpAttr(IbvAhAttr ah_attr, IbvAhAttr alt_ah_attr, IbvQPCap cap) {
        this.ah_attr = ah_attr;
        this.alt_ah_attr = alt_ah_attr;
        this.cap = cap;
    }

    /**
     * The target state ({@code IbvQP.IBV_QPS_*}).
     *
     * @return the target state ({@code IbvQP.IBV_QPS_*})
     */
    public int getQp_state() {
        return qp_state;
    }

    /**
     * Sets the target state ({@code IbvQP.IBV_QPS_*}).
     *
     * @param qp_state the new value
     */
    public void setQp_state(int qp_state) {
        this.qp_state = qp_state;
    }

    /**
     * The attribute mask ({@code IBV_QP_*} bits).
     *
     * @return the attribute mask ({@code IBV_QP_*} bits)
     */
    public int getQpAttrMask() {
        return qpAttrMask;
    }

    /**
     * Sets the attribute mask ({@code IBV_QP_*} bits).
     *
     * @param qpAttrMask the new value
     */
    public void setQpAttrMask(int qpAttrMask) {
        this.qpAttrMask = qpAttrMask;
    }

    /**
     * The remote access flags.
     *
     * @return the remote access flags
     */
    public int getQp_access_flags() {
        return qp_access_flags;
    }

    /**
     * Sets the remote access flags.
     *
     * @param qp_access_flags the new value
     */
    public void setQp_access_flags(int qp_access_flags) {
        this.qp_access_flags = qp_access_flags;
    }

    /**
     * The responder resources (IRD).
     *
     * @return the responder resources (IRD)
     */
    public byte getMax_dest_rd_atomic() {
        return max_dest_rd_atomic;
    }

    /**
     * Sets the responder resources (IRD).
     *
     * @param max_dest_rd_atomic the new value
     */
    public void setMax_dest_rd_atomic(byte max_dest_rd_atomic) {
        this.max_dest_rd_atomic = max_dest_rd_atomic;
    }

    /**
     * The port number.
     *
     * @return the port number
     */
    public byte getPort_num() {
        return port_num;
    }

    /**
     * Sets the port number.
     *
     * @param port_num the new value
     */
    public void setPort_num(byte port_num) {
        this.port_num = port_num;
    }

    /**
     * The path MTU code.
     *
     * @return the path MTU code
     */
    public int getPath_mtu() {
        return path_mtu;
    }

    /**
     * Sets the path MTU code.
     *
     * @param path_mtu the new value
     */
    public void setPath_mtu(int path_mtu) {
        this.path_mtu = path_mtu;
    }

    /**
     * The current state.
     *
     * @return the current state
     */
    public int getCur_qp_state() {
        return cur_qp_state;
    }

    /**
     * Sets the current state.
     *
     * @param cur_qp_state the new value
     */
    public void setCur_qp_state(int cur_qp_state) {
        this.cur_qp_state = cur_qp_state;
    }

    /**
     * The path migration state.
     *
     * @return the path migration state
     */
    public int getPath_mig_state() {
        return path_mig_state;
    }

    /**
     * Sets the path migration state.
     *
     * @param path_mig_state the new value
     */
    public void setPath_mig_state(int path_mig_state) {
        this.path_mig_state = path_mig_state;
    }

    /**
     * The Q_Key.
     *
     * @return the Q_Key
     */
    public int getQkey() {
        return qkey;
    }

    /**
     * Sets the Q_Key.
     *
     * @param qkey the new value
     */
    public void setQkey(int qkey) {
        this.qkey = qkey;
    }

    /**
     * The receive PSN.
     *
     * @return the receive PSN
     */
    public int getRq_psn() {
        return rq_psn;
    }

    /**
     * Sets the receive PSN.
     *
     * @param rq_psn the new value
     */
    public void setRq_psn(int rq_psn) {
        this.rq_psn = rq_psn;
    }

    /**
     * The send PSN.
     *
     * @return the send PSN
     */
    public int getSq_psn() {
        return sq_psn;
    }

    /**
     * Sets the send PSN.
     *
     * @param sq_psn the new value
     */
    public void setSq_psn(int sq_psn) {
        this.sq_psn = sq_psn;
    }

    /**
     * The destination QP number.
     *
     * @return the destination QP number
     */
    public int getDest_qp_num() {
        return dest_qp_num;
    }

    /**
     * Sets the destination QP number.
     *
     * @param dest_qp_num the new value
     */
    public void setDest_qp_num(int dest_qp_num) {
        this.dest_qp_num = dest_qp_num;
    }

    /**
     * The P_Key index.
     *
     * @return the P_Key index
     */
    public short getPkey_index() {
        return pkey_index;
    }

    /**
     * Sets the P_Key index.
     *
     * @param pkey_index the new value
     */
    public void setPkey_index(short pkey_index) {
        this.pkey_index = pkey_index;
    }

    /**
     * The alternate P_Key index.
     *
     * @return the alternate P_Key index
     */
    public short getAlt_pkey_index() {
        return alt_pkey_index;
    }

    /**
     * Sets the alternate P_Key index.
     *
     * @param alt_pkey_index the new value
     */
    public void setAlt_pkey_index(short alt_pkey_index) {
        this.alt_pkey_index = alt_pkey_index;
    }

    /**
     * Whether SQ drained is notified.
     *
     * @return whether SQ drained is notified
     */
    public byte getEn_sqd_async_notify() {
        return en_sqd_async_notify;
    }

    /**
     * Sets whether SQ drained is notified.
     *
     * @param en_sqd_async_notify the new value
     */
    public void setEn_sqd_async_notify(byte en_sqd_async_notify) {
        this.en_sqd_async_notify = en_sqd_async_notify;
    }

    /**
     * Whether the send queue is draining.
     *
     * @return whether the send queue is draining
     */
    public byte getSq_draining() {
        return sq_draining;
    }

    /**
     * Sets whether the send queue is draining.
     *
     * @param sq_draining the new value
     */
    public void setSq_draining(byte sq_draining) {
        this.sq_draining = sq_draining;
    }

    /**
     * The initiator depth (ORD).
     *
     * @return the initiator depth (ORD)
     */
    public byte getMax_rd_atomic() {
        return max_rd_atomic;
    }

    /**
     * Sets the initiator depth (ORD).
     *
     * @param max_rd_atomic the new value
     */
    public void setMax_rd_atomic(byte max_rd_atomic) {
        this.max_rd_atomic = max_rd_atomic;
    }

    /**
     * The minimum RNR NAK timer code.
     *
     * @return the minimum RNR NAK timer code
     */
    public byte getMin_rnr_timer() {
        return min_rnr_timer;
    }

    /**
     * Sets the minimum RNR NAK timer code.
     *
     * @param min_rnr_timer the new value
     */
    public void setMin_rnr_timer(byte min_rnr_timer) {
        this.min_rnr_timer = min_rnr_timer;
    }

    /**
     * The local ACK timeout exponent.
     *
     * @return the local ACK timeout exponent
     */
    public byte getTimeout() {
        return timeout;
    }

    /**
     * Sets the local ACK timeout exponent.
     *
     * @param timeout the new value
     */
    public void setTimeout(byte timeout) {
        this.timeout = timeout;
    }

    /**
     * The retry count.
     *
     * @return the retry count
     */
    public byte getRetry_cnt() {
        return retry_cnt;
    }

    /**
     * Sets the retry count.
     *
     * @param retry_cnt the new value
     */
    public void setRetry_cnt(byte retry_cnt) {
        this.retry_cnt = retry_cnt;
    }

    /**
     * The RNR retry count.
     *
     * @return the RNR retry count
     */
    public byte getRnr_retry() {
        return rnr_retry;
    }

    /**
     * Sets the RNR retry count.
     *
     * @param rnr_retry the new value
     */
    public void setRnr_retry(byte rnr_retry) {
        this.rnr_retry = rnr_retry;
    }

    /**
     * The alternate port number.
     *
     * @return the alternate port number
     */
    public byte getAlt_port_num() {
        return alt_port_num;
    }

    /**
     * Sets the alternate port number.
     *
     * @param alt_port_num the new value
     */
    public void setAlt_port_num(byte alt_port_num) {
        this.alt_port_num = alt_port_num;
    }

    /**
     * The alternate ACK timeout.
     *
     * @return the alternate ACK timeout
     */
    public byte getAlt_timeout() {
        return alt_timeout;
    }

    /**
     * Sets the alternate ACK timeout.
     *
     * @param alt_timeout the new value
     */
    public void setAlt_timeout(byte alt_timeout) {
        this.alt_timeout = alt_timeout;
    }

    /**
     * The primary address vector.
     *
     * @return the address vector
     */
    public IbvAhAttr getAh_attr() {
        return ah_attr;
    }

    /**
     * The alternate address vector.
     *
     * @return the address vector
     */
    public IbvAhAttr getAlt_ah_attr() {
        return alt_ah_attr;
    }

    /**
     * The capacities.
     *
     * @return the capacities
     */
    public IbvQPCap getCap() {
        return cap;
    }
}
