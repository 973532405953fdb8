package io.jrdma.spi.ibcm;

/**
 * ConnectReject, REJ (IBTA Vol 1 §12.6.7, Table 108). The reason is kept as its 16-bit code so that
 * reasons this code does not know survive a decode/encode round trip; {@link #rejectReason()} maps it
 * to {@link io.jrdma.cm.RejectReason}.
 *
 * @param localCommId the sender's communication id
 * @param remoteCommId the receiver's communication id (0 when rejecting a REQ never answered)
 * @param messageRejected which message is rejected: {@link #REJECTED_REQ}, {@link #REJECTED_REP} or
 *        {@link #REJECTED_OTHER}, 2 bits
 * @param reason the reject reason code, 16 bits ({@link io.jrdma.cm.RejectReason#value()})
 * @param additionalRejectInfo ARI, at most 72 bytes; its length is the 7-bit ARI length on the wire
 * @param privateData private data, at most 148 bytes
 */
public record Rej(int localCommId, int remoteCommId, int messageRejected, int reason,
        Octets additionalRejectInfo, Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 148;
    /** Size of the ARI field. */
    public static final int ARI_LIMIT = 72;
    /** Message rejected: REQ. */
    public static final int REJECTED_REQ = 0;
    /** Message rejected: REP. */
    public static final int REJECTED_REP = 1;
    /** Message rejected: other (no message, e.g. after a timeout). */
    public static final int REJECTED_OTHER = 2;

    /** Checks every field's width and the ARI and private-data limits. */
    public Rej {
        CmLimits.bits("messageRejected", messageRejected, 2);
        CmLimits.bits("reason", reason, 16);
        CmLimits.upTo("additionalRejectInfo", additionalRejectInfo, ARI_LIMIT);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    /**
     * The reason as an enum constant.
     *
     * @return the reason, or {@code null} for a code Linux does not define
     */
    public io.jrdma.cm.RejectReason rejectReason() {
        return io.jrdma.cm.RejectReason.of(reason);
    }

    @Override
    public int attributeId() {
        return ATTR_REJ;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
