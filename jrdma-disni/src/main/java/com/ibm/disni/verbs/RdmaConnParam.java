package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Connection parameters ({@code struct rdma_conn_param}) for {@link RdmaCmId#connect} and {@link RdmaCmId#accept},
 * and as a {@link RdmaCmEvent} reports them ({@link RdmaCmEvent#getConn()}).
 *
 * <p>Private data is named by a native address and a length, as in C ({@link #setPrivate_data(long)},
 * {@link #setPrivate_data_len(byte)}); {@link #setPrivateData(byte[])} and {@link #getPrivateData()} are jrdma's
 * additions that take and give a Java array. The responder resources (IRD) and initiator depth (ORD) are
 * settable; left unset they are the device's maximum, as DiSNI always used.
 */
@SuppressWarnings("checkstyle:methodname")
public class RdmaConnParam {
    protected long private_data_addr;
    protected byte private_data_len;
    protected byte responder_resources;
    protected byte initiator_depth;
    protected byte flow_control;
    protected byte retry_count;
    protected byte rnr_retry_count;
    protected byte srq;
    protected int qp_num;

    /** Keeps the native copy of private data given as an array alive as long as this object. */
    private MemorySegment ownedPrivateData;
    private boolean responderResourcesSet;
    private boolean initiatorDepthSet;

    /** Zeroed parameters: no private data, retries 0, IRD and ORD the device's maximum. */
    public RdmaConnParam() {
    }

    /**
     * The native address of the private data.
     *
     * @return the address, 0 if none
     */
    public long getPrivate_data() {
        return private_data_addr;
    }

    /**
     * Sets the native address of the private data; {@link #setPrivate_data_len(byte)} gives its length. The bytes
     * are read when the parameters are used (connect, accept).
     *
     * @param private_data_addr the address, 0 for none
     * @throws IOException never; declared as DiSNI declares it
     */
    public void setPrivate_data(long private_data_addr) throws IOException {
        this.private_data_addr = private_data_addr;
        this.ownedPrivateData = null;
    }

    /**
     * The length of the private data, 0 to 255 (read the byte as unsigned).
     *
     * @return the length
     */
    public byte getPrivate_data_len() {
        return private_data_len;
    }

    /**
     * Sets the length of the private data.
     *
     * @param private_data_len the length, 0 to 255 as an unsigned byte
     */
    public void setPrivate_data_len(byte private_data_len) {
        this.private_data_len = private_data_len;
    }

    /**
     * The responder resources: RDMA READ and atomic requests this side accepts at once (IRD).
     *
     * @return the value, 0 if unset
     */
    public byte getResponder_resources() {
        return responder_resources;
    }

    /**
     * Sets the responder resources (IRD), 0 to 255 as an unsigned byte; the transport lowers it to the device's
     * limit.
     *
     * @param responder_resources the value
     * @throws IOException never; declared as DiSNI declares it
     */
    public void setResponder_resources(byte responder_resources) throws IOException {
        this.responder_resources = responder_resources;
        this.responderResourcesSet = true;
    }

    /**
     * The initiator depth: RDMA READ and atomic requests this side issues at once (ORD).
     *
     * @return the value, 0 if unset
     */
    public byte getInitiator_depth() {
        return initiator_depth;
    }

    /**
     * Sets the initiator depth (ORD), 0 to 255 as an unsigned byte; the transport lowers it to the device's limit.
     *
     * @param initiator_depth the value
     * @throws IOException never; declared as DiSNI declares it
     */
    public void setInitiator_depth(byte initiator_depth) throws IOException {
        this.initiator_depth = initiator_depth;
        this.initiatorDepthSet = true;
    }

    /**
     * Whether end-to-end flow control is offered (IB).
     *
     * @return non-zero if offered
     */
    public byte getFlow_control() {
        return flow_control;
    }

    /**
     * Sets whether end-to-end flow control is offered (IB; iWARP ignores it).
     *
     * @param flow_control non-zero to offer it
     * @throws IOException never; declared as DiSNI declares it
     */
    public void setFlow_control(byte flow_control) throws IOException {
        this.flow_control = flow_control;
    }

    /**
     * The transport retry count, 0 to 7.
     *
     * @return the count
     */
    public byte getRetry_count() {
        return retry_count;
    }

    /**
     * Sets the transport retry count.
     *
     * @param retry_count 0 to 7
     * @throws IOException if the count is outside 0..7
     */
    public void setRetry_count(byte retry_count) throws IOException {
        if (retry_count < 0 || retry_count > 7) {
            throw new IOException("retry_count is 3 bits: " + retry_count);
        }
        this.retry_count = retry_count;
    }

    /**
     * The RNR retry count, 0 to 7 (7: retry forever).
     *
     * @return the count
     */
    public byte getRnr_retry_count() {
        return rnr_retry_count;
    }

    /**
     * Sets the RNR retry count, 0 to 7 (7: retry forever); a value outside is taken modulo 8, as the 3-bit field
     * of the wire takes it.
     *
     * @param rnr_retry_count the count
     */
    public void setRnr_retry_count(byte rnr_retry_count) {
        this.rnr_retry_count = rnr_retry_count;
    }

    /**
     * Whether the QP uses a shared receive queue (only for ids without a QP).
     *
     * @return non-zero if it does
     */
    public byte getSrq() {
        return srq;
    }

    /**
     * Sets whether the QP uses a shared receive queue (advertised only by ids without a QP).
     *
     * @param srq non-zero if it does
     * @throws IOException never; declared as DiSNI declares it
     */
    public void setSrq(byte srq) throws IOException {
        this.srq = srq;
    }

    /**
     * The QP number advertised by an id without a QP.
     *
     * @return the number
     */
    public int getQp_num() {
        return qp_num;
    }

    /**
     * Sets the QP number an id without a QP advertises (24 bits).
     *
     * @param qp_num the number
     * @throws IOException if it does not fit 24 bits
     */
    public void setQp_num(int qp_num) throws IOException {
        if ((qp_num & ~0xFFFFFF) != 0) {
            throw new IOException("qp_num is 24 bits: " + qp_num);
        }
        this.qp_num = qp_num;
    }

    /**
     * jrdma: sets the private data from an array (copied to native memory this object keeps), instead of an
     * address and a length.
     *
     * @param data at most 255 bytes, or {@code null} for none
     * @throws IllegalArgumentException if {@code data} is longer than 255 bytes
     */
    public void setPrivateData(byte[] data) {
        if (data == null || data.length == 0) {
            ownedPrivateData = null;
            private_data_addr = 0;
            private_data_len = 0;
            return;
        }
        if (data.length > 255) {
            throw new IllegalArgumentException("private_data_len is one byte: " + data.length + " bytes");
        }
        MemorySegment copy = Arena.ofAuto().allocate(data.length);
        MemorySegment.copy(data, 0, copy, ValueLayout.JAVA_BYTE, 0, data.length);
        ownedPrivateData = copy;
        private_data_addr = copy.address();
        private_data_len = (byte) data.length;
    }

    /**
     * jrdma: a copy of the private data (for an event's parameters, what the peer sent).
     *
     * @return the bytes, empty if none
     */
    public byte[] getPrivateData() {
        int len = Byte.toUnsignedInt(private_data_len);
        if (private_data_addr == 0 || len == 0) {
            return new byte[0];
        }
        MemorySegment src = ownedPrivateData != null && ownedPrivateData.address() == private_data_addr
                ? ownedPrivateData : MemorySegment.ofAddress(private_data_addr).reinterpret(len);
        return src.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
    }

    boolean responderResourcesSet() {
        return responderResourcesSet;
    }

    boolean initiatorDepthSet() {
        return initiatorDepthSet;
    }

    @Override
    public String toString() {
        return "RdmaConnParam[private_data_len=" + Byte.toUnsignedInt(private_data_len) + ", responder_resources="
                + Byte.toUnsignedInt(responder_resources) + ", initiator_depth=" + Byte.toUnsignedInt(initiator_depth)
                + ", retry_count=" + retry_count + ", rnr_retry_count=" + rnr_retry_count + "]";
    }
}
