package io.jrdma.spi.ibcm;

/**
 * ServiceIDResReqResp, SIDR_REP (IBTA Vol 1 §12.11.2, Table 120). The 24-bit ECE vendor id is split
 * into a 16-bit high part at byte 6 and an 8-bit low part after the QPN ({@code CM_SIDR_REP_VENDOR_ID_H/L}).
 *
 * @param requestId the SIDR_REQ's request id
 * @param status {@link #STATUS_VALID} or one of the other {@code STATUS_*} codes, 8 bits
 * @param additionalInfo additional information, at most 72 bytes; its length is the 8-bit length field
 * @param vendorId ECE vendor id, 24 bits
 * @param qpn the service's QPN, 24 bits
 * @param serviceId the service id
 * @param qkey the service's Q_Key (rdma_cm: {@code RDMA_UDP_QKEY} 0x01234567)
 * @param eceOptions ECE options carried in the MAD header's attribute modifier
 * @param privateData private data, at most 136 bytes
 */
public record SidrRep(int requestId, int status, Octets additionalInfo, int vendorId, int qpn, long serviceId,
        int qkey, int eceOptions, Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 136;
    /** Size of the additional-information field. */
    public static final int ADDITIONAL_INFO_LIMIT = 72;
    /** Status: QPN and Q_Key are valid ({@code IB_SIDR_SUCCESS}). */
    public static final int STATUS_VALID = 0;
    /** Status: service id not supported ({@code IB_SIDR_UNSUPPORTED}). */
    public static final int STATUS_UNSUPPORTED = 1;
    /** Status: rejected by the service provider ({@code IB_SIDR_REJECT}). */
    public static final int STATUS_REJECT = 2;
    /** Status: no QP available ({@code IB_SIDR_NO_QP}). */
    public static final int STATUS_NO_QP = 3;
    /** Status: redirect, see the additional information ({@code IB_SIDR_REDIRECT}). */
    public static final int STATUS_REDIRECT = 4;
    /** Status: SIDR version not supported ({@code IB_SIDR_UNSUPPORTED_VERSION}). */
    public static final int STATUS_UNSUPPORTED_VERSION = 5;

    /** Checks every field's width and the additional-information and private-data limits. */
    public SidrRep {
        CmLimits.bits("status", status, 8);
        CmLimits.upTo("additionalInfo", additionalInfo, ADDITIONAL_INFO_LIMIT);
        CmLimits.bits("vendorId", vendorId, 24);
        CmLimits.bits("qpn", qpn, 24);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_SIDR_REP;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
