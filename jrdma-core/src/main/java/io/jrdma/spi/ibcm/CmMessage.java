package io.jrdma.spi.ibcm;

/**
 * A Communication Manager message (IBTA Vol 1 ch. 12, §12.6 message formats) without its MAD
 * header: the 232 bytes of CM data as a record. The attribute ids are those of IBTA Table 104 and
 * Linux's {@code ib_cm.h} ({@code CM_REQ_ATTR_ID} ...).
 */
public sealed interface CmMessage permits Req, Mra, Rej, Rep, Rtu, Dreq, Drep, SidrReq, SidrRep {
    /** ConnectRequest. */
    int ATTR_REQ = 0x0010;
    /** MsgRcptAck. */
    int ATTR_MRA = 0x0011;
    /** ConnectReject. */
    int ATTR_REJ = 0x0012;
    /** ConnectReply. */
    int ATTR_REP = 0x0013;
    /** ReadyToUse. */
    int ATTR_RTU = 0x0014;
    /** DisconnectRequest. */
    int ATTR_DREQ = 0x0015;
    /** DisconnectReply. */
    int ATTR_DREP = 0x0016;
    /** ServiceIDResReq. */
    int ATTR_SIDR_REQ = 0x0017;
    /** ServiceIDResReqResp. */
    int ATTR_SIDR_REP = 0x0018;

    /** Size of the CM data that follows the 24-byte MAD header in every CM MAD. */
    int CM_DATA_LENGTH = 232;

    /**
     * The MAD attribute id of this message.
     *
     * @return one of the {@code ATTR_*} constants
     */
    int attributeId();

    /**
     * The private data carried by this message (at most {@link #privateDataLimit()} bytes; decoded
     * messages carry the whole field, zero padded, because the wire has no length for it).
     *
     * @return the private data
     */
    Octets privateData();

    /**
     * The size of this message's private-data field on the wire.
     *
     * @return the limit in bytes (92 REQ, 222 MRA, 148 REJ, 196 REP, 224 RTU/DREP, 220 DREQ,
     *         216 SIDR_REQ, 136 SIDR_REP)
     */
    int privateDataLimit();

    /**
     * A short name as Linux's CM traces print it: {@code REQ}, {@code SIDR_REP} ...
     *
     * @param attributeId a MAD attribute id
     * @return the name, or {@code attr 0x....} for an id that is not a CM message here
     */
    static String attributeName(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> "REQ";
            case ATTR_MRA -> "MRA";
            case ATTR_REJ -> "REJ";
            case ATTR_REP -> "REP";
            case ATTR_RTU -> "RTU";
            case ATTR_DREQ -> "DREQ";
            case ATTR_DREP -> "DREP";
            case ATTR_SIDR_REQ -> "SIDR_REQ";
            case ATTR_SIDR_REP -> "SIDR_REP";
            default -> String.format("attr 0x%04x", attributeId);
        };
    }
}
