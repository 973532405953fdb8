package io.jrdma.spi.ibcm;

/**
 * ServiceIDResReq, SIDR_REQ (IBTA Vol 1 §12.11.1, Table 119): resolves a service id to a UD QPN and
 * Q_Key. rdma_cm sends it for {@code RDMA_PS_UDP} ids with its 36-byte header in the private data.
 *
 * @param requestId the request id the SIDR_REP echoes
 * @param partitionKey P_Key, 16 bits
 * @param serviceId the service id (rdma_cm: port space &lt;&lt; 16 | port)
 * @param privateData private data, at most 216 bytes
 */
public record SidrReq(int requestId, int partitionKey, long serviceId, Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 216;

    /** Checks the P_Key width and the private-data limit. */
    public SidrReq {
        CmLimits.bits("partitionKey", partitionKey, 16);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_SIDR_REQ;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
