package io.jrdma.spi.ibcm;

/**
 * ConnectRequest, REQ (IBTA Vol 1 §12.6.5, Table 106; Linux {@code ibta_vol1_c12.h CM_REQ_*}).
 *
 * <p>As rdma_cm sends it over rxe (verified with Linux 6.1 captures, see jrdma-rxe's golden README):
 * Q_Key 0, EECNs 0, remote and local CM response timeout 20, RC, no end-to-end flow control, retry
 * count and RNR retry from the connection parameters (7/7 by default), path MTU from the port,
 * max CM retries 15, permissive LIDs, hop limit 64 and the rdma_cm header in the private data.
 *
 * @param localCommId the sender's communication id
 * @param vendorId ECE vendor id, 24 bits
 * @param serviceId the service id (rdma_cm: port space &lt;&lt; 16 | port)
 * @param localCaGuid the sender's CA GUID
 * @param localQkey the sender's Q_Key (0 for RC)
 * @param localQpn the sender's QPN, 24 bits
 * @param responderResources RDMA READ/atomic requests the sender accepts, 8 bits
 * @param localEecn local EE context number, 24 bits (RD only)
 * @param initiatorDepth RDMA READ/atomic requests the sender issues, 8 bits
 * @param remoteEecn remote EE context number, 24 bits (RD only)
 * @param remoteCmResponseTimeout remote CM response timeout, 5 bits
 * @param transportServiceType transport: {@link #TRANSPORT_RC}, {@link #TRANSPORT_UC}, {@link #TRANSPORT_RD}
 *        or {@link #TRANSPORT_XRC}, 2 bits
 * @param endToEndFlowControl end-to-end flow control bit
 * @param startingPsn the first PSN the sender expects to receive (the receiver's send PSN), 24 bits
 * @param localCmResponseTimeout local CM response timeout, 5 bits
 * @param retryCount transport retry count, 3 bits
 * @param partitionKey P_Key, 16 bits
 * @param pathMtu path MTU (IBTA enumeration, 1 = 256 ... 5 = 4096), 4 bits
 * @param rdcExists RDC exists bit
 * @param rnrRetryCount RNR retry count (7 = infinite), 3 bits
 * @param maxCmRetries max CM retries, 4 bits
 * @param srq SRQ bit
 * @param extendedTransportType extended transport type, 3 bits
 * @param primaryPath the primary path
 * @param alternatePath the alternate path ({@link CmPath#NONE} when absent)
 * @param sapSupported SAP supported bit (byte 139)
 * @param eceOptions ECE options carried in the MAD header's attribute modifier
 * @param privateData private data, at most 92 bytes
 */
public record Req(int localCommId, int vendorId, long serviceId, long localCaGuid, int localQkey, int localQpn,
        int responderResources, int localEecn, int initiatorDepth, int remoteEecn, int remoteCmResponseTimeout,
        int transportServiceType, boolean endToEndFlowControl, int startingPsn, int localCmResponseTimeout,
        int retryCount, int partitionKey, int pathMtu, boolean rdcExists, int rnrRetryCount, int maxCmRetries,
        boolean srq, int extendedTransportType, CmPath primaryPath, CmPath alternatePath, boolean sapSupported,
        int eceOptions, Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 92;
    /** Transport service type: reliable connection. */
    public static final int TRANSPORT_RC = 0;
    /** Transport service type: unreliable connection. */
    public static final int TRANSPORT_UC = 1;
    /** Transport service type: reliable datagram. */
    public static final int TRANSPORT_RD = 2;
    /** Transport service type 3: XRC, with the extended transport type (IBTA Annex A14). */
    public static final int TRANSPORT_XRC = 3;

    /** Checks every field's width and the private-data limit. */
    public Req {
        CmLimits.bits("vendorId", vendorId, 24);
        CmLimits.bits("localQpn", localQpn, 24);
        CmLimits.bits("responderResources", responderResources, 8);
        CmLimits.bits("localEecn", localEecn, 24);
        CmLimits.bits("initiatorDepth", initiatorDepth, 8);
        CmLimits.bits("remoteEecn", remoteEecn, 24);
        CmLimits.bits("remoteCmResponseTimeout", remoteCmResponseTimeout, 5);
        CmLimits.bits("transportServiceType", transportServiceType, 2);
        CmLimits.bits("startingPsn", startingPsn, 24);
        CmLimits.bits("localCmResponseTimeout", localCmResponseTimeout, 5);
        CmLimits.bits("retryCount", retryCount, 3);
        CmLimits.bits("partitionKey", partitionKey, 16);
        CmLimits.bits("pathMtu", pathMtu, 4);
        CmLimits.bits("rnrRetryCount", rnrRetryCount, 3);
        CmLimits.bits("maxCmRetries", maxCmRetries, 4);
        CmLimits.bits("extendedTransportType", extendedTransportType, 3);
        CmLimits.notNull("primaryPath", primaryPath);
        CmLimits.notNull("alternatePath", alternatePath);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_REQ;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
