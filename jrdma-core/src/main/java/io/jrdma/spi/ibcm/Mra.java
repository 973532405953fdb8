package io.jrdma.spi.ibcm;

/**
 * Message Receipt Acknowledgement, MRA (IBTA Vol 1 §12.6.6, Table 107). Linux's rdma_cm arms a
 * delayed MRA ({@code CMA_CM_MRA_SETTING}: service timeout 24) while the consumer handles a REQ or
 * REP and sends it only when a duplicate of that message arrives (verified with rxe 6.1).
 *
 * @param localCommId the sender's communication id
 * @param remoteCommId the receiver's communication id
 * @param messageMraed which message is acknowledged: {@link #MRAED_REQ}, {@link #MRAED_REP} or
 *        {@link #MRAED_LAP}, 2 bits
 * @param serviceTimeout service timeout (4.096 µs * 2^t), 5 bits
 * @param privateData private data, at most 222 bytes
 */
public record Mra(int localCommId, int remoteCommId, int messageMraed, int serviceTimeout, Octets privateData)
        implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 222;
    /** Message MRAed: REQ. */
    public static final int MRAED_REQ = 0;
    /** Message MRAed: REP. */
    public static final int MRAED_REP = 1;
    /** Message MRAed: LAP. */
    public static final int MRAED_LAP = 2;

    /** Checks every field's width and the private-data limit. */
    public Mra {
        CmLimits.bits("messageMraed", messageMraed, 2);
        CmLimits.bits("serviceTimeout", serviceTimeout, 5);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_MRA;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
