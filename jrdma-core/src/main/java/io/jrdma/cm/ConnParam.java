package io.jrdma.cm;

import java.util.Arrays;

/**
 * Connection parameters ({@code struct rdma_conn_param}) for connect and accept, and as reported
 * with CONNECT_REQUEST and ESTABLISHED.
 *
 * @param privateData private data (copied; at most the transport's limit, checked at the call)
 * @param responderResources RDMA READ/atomic requests this side accepts (IRD)
 * @param initiatorDepth RDMA READ/atomic requests this side issues (ORD)
 * @param flowControl end-to-end flow control (IB)
 * @param retryCount transport retries, 3 bits
 * @param rnrRetryCount RNR retries, 3 bits, 7 = infinite
 * @param srq whether the QP uses an SRQ (IB)
 * @param qpNum QP number to advertise when the id has no QP
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, boolean flowControl,
        int retryCount, int rnrRetryCount, boolean srq, int qpNum) {
    /** Validates the bit-field ranges and copies the private data. Linux: {@code struct rdma_conn_param}. */
    public ConnParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (responderResources < 0 || responderResources > 255 || initiatorDepth < 0 || initiatorDepth > 255) {
            throw new IllegalArgumentException("responder resources and initiator depth are 8-bit values: "
                    + responderResources + "/" + initiatorDepth);
        }
        if (retryCount < 0 || retryCount > 7) {
            throw new IllegalArgumentException("retry_count is 3 bits: " + retryCount);
        }
        if (rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("rnr_retry_count is 3 bits (7 = infinite): " + rnrRetryCount);
        }
        if ((qpNum & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("qp_num is 24 bits: " + qpNum);
        }
    }

    /** librdmacm's defaults: IRD/ORD 1, retry 7, RNR retry 7, no private data. */
    public static ConnParam defaults() {
        return new ConnParam(null, 1, 1, false, 7, 7, false, 0);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The length of the private data without copying it. Linux: {@code rdma_conn_param.private_data_len}. */
    public int privateDataLength() {
        return privateData.length;
    }

    /** A copy with other private data. Linux: {@code rdma_conn_param.private_data} and {@code private_data_len}. */
    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq,
                qpNum);
    }

    /** A copy with other IRD/ORD. Linux: {@code rdma_conn_param.responder_resources} and {@code initiator_depth}. */
    public ConnParam withResources(int responder, int initiator) {
        return new ConnParam(privateData, responder, initiator, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    /** A copy with other retry counts. Linux: {@code rdma_conn_param.retry_count} and {@code rnr_retry_count}. */
    public ConnParam withRetries(int retry, int rnrRetry) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retry, rnrRetry, srq,
                qpNum);
    }

    /**
     * A copy advertising {@code qpn} (for ids without a QP). Linux: {@code rdma_conn_param.qp_num} (a QP not attached
     * to the id).
     */
    public ConnParam withQpNum(int qpn) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpn);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnParam c && Arrays.equals(privateData, c.privateData)
                && responderResources == c.responderResources && initiatorDepth == c.initiatorDepth
                && flowControl == c.flowControl && retryCount == c.retryCount && rnrRetryCount == c.rnrRetryCount
                && srq == c.srq && qpNum == c.qpNum;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + responderResources * 7 + initiatorDepth;
    }

    @Override
    public String toString() {
        return "ConnParam[pdata=" + privateData.length + "B, ird=" + responderResources + ", ord=" + initiatorDepth
                + ", retry=" + retryCount + ", rnrRetry=" + rnrRetryCount + ", qpn=0x" + Integer.toHexString(qpNum)
                + "]";
    }
}
