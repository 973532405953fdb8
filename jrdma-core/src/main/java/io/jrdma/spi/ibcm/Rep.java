package io.jrdma.spi.ibcm;

/**
 * ConnectReply, REP (IBTA Vol 1 §12.6.8, Table 110). The 24-bit ECE vendor id travels in three bytes
 * after the QPN, EECN and PSN ({@code CM_REP_VENDOR_ID_H/M/L}).
 *
 * @param localCommId the sender's communication id
 * @param remoteCommId the REQ sender's communication id
 * @param localQkey the sender's Q_Key
 * @param localQpn the sender's QPN, 24 bits
 * @param vendorId ECE vendor id, 24 bits
 * @param localEecn local EE context number, 24 bits
 * @param startingPsn the first PSN the sender expects to receive (the REQ sender's send PSN), 24 bits
 * @param responderResources RDMA READ/atomic requests the sender accepts, 8 bits
 * @param initiatorDepth RDMA READ/atomic requests the sender issues, 8 bits
 * @param targetAckDelay target ACK delay, 5 bits
 * @param failoverAccepted failover accepted, 2 bits
 * @param endToEndFlowControl end-to-end flow control bit
 * @param rnrRetryCount RNR retry count, 3 bits
 * @param srq SRQ bit
 * @param localCaGuid the sender's CA GUID
 * @param eceOptions ECE options carried in the MAD header's attribute modifier
 * @param privateData private data, at most 196 bytes
 */
public record Rep(int localCommId, int remoteCommId, int localQkey, int localQpn, int vendorId, int localEecn,
        int startingPsn, int responderResources, int initiatorDepth, int targetAckDelay, int failoverAccepted,
        boolean endToEndFlowControl, int rnrRetryCount, boolean srq, long localCaGuid, int eceOptions,
        Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 196;

    /** Checks every field's width and the private-data limit. */
    public Rep {
        CmLimits.bits("localQpn", localQpn, 24);
        CmLimits.bits("vendorId", vendorId, 24);
        CmLimits.bits("localEecn", localEecn, 24);
        CmLimits.bits("startingPsn", startingPsn, 24);
        CmLimits.bits("responderResources", responderResources, 8);
        CmLimits.bits("initiatorDepth", initiatorDepth, 8);
        CmLimits.bits("targetAckDelay", targetAckDelay, 5);
        CmLimits.bits("failoverAccepted", failoverAccepted, 2);
        CmLimits.bits("rnrRetryCount", rnrRetryCount, 3);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_REP;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
