package io.jrdma.rxe.cm;

import io.jrdma.internal.roce.BigEndian;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.internal.roce.IbOpcode;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.spi.ibcm.CmPath;
import io.jrdma.spi.ibcm.Drep;
import io.jrdma.spi.ibcm.Dreq;
import io.jrdma.spi.ibcm.Mra;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rej;
import io.jrdma.spi.ibcm.Rep;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.spi.ibcm.Rtu;
import io.jrdma.spi.ibcm.SidrRep;
import io.jrdma.spi.ibcm.SidrReq;
import io.jrdma.verbs.Gid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Encodes and decodes CM messages as 256-byte MADs (IBTA Vol 1 §13.4.3 common MAD header + §12.6 CM
 * data) and as the QP1 datagrams that carry them over RoCEv2. Offsets and bit positions follow Linux's
 * {@code include/rdma/ibta_vol1_c12.h} (behaviour reference; {@code CM_FIELD*_LOC(byte, bits)} means
 * the most significant bits of the byte, halfword or word at that offset of the CM data).
 * <pre>
 *  MAD header (24 bytes, struct ib_mad_hdr; all big-endian)
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | BaseVersion 1 | MgmtClass 07  | ClassVersion 2|  Method 03    |  0
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Status             |        ClassSpecific          |  4
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  TransactionID (64 bits)                      |  8
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         AttributeID           |           Reserved            | 16
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |        AttributeModifier (ECE options for REQ, REP, SIDR_REP) | 20
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  CM data (232 bytes)                          | 24
 *
 *  QP1 datagram over RoCEv2 (UDP payload, 280 bytes)
 *  | BTH: UD SEND Only 0x64, P_Key, dest QP 1, AckReq, PSN (12) | DETH: Q_Key 0x80010000, src QP 1 (8) |
 *  | MAD (256) | ICRC (4, little-endian) |
 * </pre>
 * Reserved fields are written as zero and ignored when read; a MAD decoded from Linux re-encodes to
 * the same bytes. Decoding never throws for wire input: it returns {@link CmDecodeResult.Malformed}.
 */
public final class CmMadCodec {
    /** Size of a MAD. */
    public static final int MAD_LENGTH = 256;
    /** Size of the common MAD header. */
    public static final int MAD_HEADER_LENGTH = 24;
    /** Where the CM data starts in the MAD. */
    public static final int CM_DATA_OFFSET = MAD_HEADER_LENGTH;
    /** MAD offset of the base version. */
    public static final int BASE_VERSION_OFFSET = 0;
    /** MAD offset of the management class. */
    public static final int MGMT_CLASS_OFFSET = 1;
    /** MAD offset of the class version. */
    public static final int CLASS_VERSION_OFFSET = 2;
    /** MAD offset of the method. */
    public static final int METHOD_OFFSET = 3;
    /** MAD offset of the status. */
    public static final int STATUS_OFFSET = 4;
    /** MAD offset of the class-specific field. */
    public static final int CLASS_SPECIFIC_OFFSET = 6;
    /** MAD offset of the transaction id. */
    public static final int TID_OFFSET = 8;
    /** MAD offset of the attribute id. */
    public static final int ATTR_ID_OFFSET = 16;
    /** MAD offset of the attribute modifier. */
    public static final int ATTR_MOD_OFFSET = 20;
    /** {@code IB_MGMT_BASE_VERSION}. */
    public static final int BASE_VERSION = 1;
    /** {@code IB_MGMT_CLASS_CM}. */
    public static final int MGMT_CLASS_CM = 0x07;
    /** {@code IB_CM_CLASS_VERSION}. */
    public static final int CM_CLASS_VERSION = 2;
    /** {@code IB_MGMT_METHOD_SEND}: every CM message is sent with it. */
    public static final int METHOD_SEND = 0x03;
    /** The GSI QP, sender and receiver of CM MADs. */
    public static final int QP1 = 1;
    /** Offset of the MAD in a QP1 datagram. */
    public static final int DATAGRAM_MAD_OFFSET = Bth.LENGTH + Deth.LENGTH;
    /** Size of a QP1 datagram carrying one MAD: BTH, DETH, MAD, ICRC. */
    public static final int DATAGRAM_LENGTH = DATAGRAM_MAD_OFFSET + MAD_LENGTH + Icrc.LENGTH;

    // REQ (Table 106), offsets into the CM data
    private static final int REQ_LOCAL_COMM_ID = 0;
    private static final int REQ_VENDOR_ID = 5;
    private static final int REQ_SERVICE_ID = 8;
    private static final int REQ_LOCAL_CA_GUID = 16;
    private static final int REQ_LOCAL_QKEY = 28;
    private static final int REQ_LOCAL_QPN = 32;
    private static final int REQ_RESPONDER_RESOURCES = 35;
    private static final int REQ_LOCAL_EECN = 36;
    private static final int REQ_INITIATOR_DEPTH = 39;
    private static final int REQ_REMOTE_EECN = 40;
    private static final int REQ_TIMEOUT_TRANSPORT = 43;
    private static final int REQ_STARTING_PSN = 44;
    private static final int REQ_TIMEOUT_RETRY = 47;
    private static final int REQ_PARTITION_KEY = 48;
    private static final int REQ_MTU_RDC_RNR = 50;
    private static final int REQ_CM_RETRIES_SRQ_EXT = 51;
    private static final int REQ_PRIMARY_PATH = 52;
    private static final int REQ_ALTERNATE_PATH = 96;
    private static final int REQ_PRIVATE_DATA = 140;
    // a path inside the REQ, offsets from its start
    private static final int PATH_LOCAL_LID = 0;
    private static final int PATH_REMOTE_LID = 2;
    private static final int PATH_LOCAL_GID = 4;
    private static final int PATH_REMOTE_GID = 20;
    private static final int PATH_FLOW_LABEL_RATE = 36;
    private static final int PATH_TRAFFIC_CLASS = 40;
    private static final int PATH_HOP_LIMIT = 41;
    private static final int PATH_SL_SUBNET_LOCAL = 42;
    private static final int PATH_ACK_TIMEOUT = 43;
    private static final int FLAG_SAP_SUPPORTED = 0x04;
    // MRA (Table 107)
    private static final int MRA_MESSAGE_MRAED = 8;
    private static final int MRA_SERVICE_TIMEOUT = 9;
    private static final int MRA_PRIVATE_DATA = 10;
    // REJ (Table 108)
    private static final int REJ_MESSAGE_REJECTED = 8;
    private static final int REJ_ARI_LENGTH = 9;
    private static final int REJ_REASON = 10;
    private static final int REJ_ARI = 12;
    private static final int REJ_PRIVATE_DATA = 84;
    // REP (Table 110)
    private static final int REP_LOCAL_QKEY = 8;
    private static final int REP_LOCAL_QPN = 12;
    private static final int REP_VENDOR_ID_H = 15;
    private static final int REP_LOCAL_EECN = 16;
    private static final int REP_VENDOR_ID_M = 19;
    private static final int REP_STARTING_PSN = 20;
    private static final int REP_VENDOR_ID_L = 23;
    private static final int REP_RESPONDER_RESOURCES = 24;
    private static final int REP_INITIATOR_DEPTH = 25;
    private static final int REP_ACK_DELAY_FAILOVER_FC = 26;
    private static final int REP_RNR_SRQ = 27;
    private static final int REP_LOCAL_CA_GUID = 28;
    private static final int REP_PRIVATE_DATA = 36;
    // RTU (Table 111), DREQ (Table 112), DREP (Table 113)
    private static final int LOCAL_COMM_ID = 0;
    private static final int REMOTE_COMM_ID = 4;
    private static final int RTU_PRIVATE_DATA = 8;
    private static final int DREQ_REMOTE_QPN = 8;
    private static final int DREQ_PRIVATE_DATA = 12;
    private static final int DREP_PRIVATE_DATA = 8;
    // SIDR_REQ (Table 119), SIDR_REP (Table 120)
    private static final int SIDR_REQUEST_ID = 0;
    private static final int SIDR_REQ_PARTITION_KEY = 4;
    private static final int SIDR_REQ_SERVICE_ID = 8;
    private static final int SIDR_REQ_PRIVATE_DATA = 16;
    private static final int SIDR_REP_STATUS = 4;
    private static final int SIDR_REP_INFO_LENGTH = 5;
    private static final int SIDR_REP_VENDOR_ID_H = 6;
    private static final int SIDR_REP_QPN = 8;
    private static final int SIDR_REP_VENDOR_ID_L = 11;
    private static final int SIDR_REP_SERVICE_ID = 12;
    private static final int SIDR_REP_QKEY = 20;
    private static final int SIDR_REP_INFO = 24;
    private static final int SIDR_REP_PRIVATE_DATA = 96;

    private static final int GID_LENGTH = 16;

    private CmMadCodec() {
    }

    // ------------------------------------------------------------------------------------- encode

    /**
     * Writes a 256-byte MAD.
     *
     * @param mad the MAD
     * @param dst destination buffer
     * @param offset where the MAD starts; 256 bytes are written
     */
    public static void encode(CmMad mad, MemorySegment dst, long offset) {
        dst.asSlice(offset, MAD_LENGTH).fill((byte) 0);
        CmMessage m = mad.message();
        BigEndian.putU8(dst, offset + BASE_VERSION_OFFSET, BASE_VERSION);
        BigEndian.putU8(dst, offset + MGMT_CLASS_OFFSET, MGMT_CLASS_CM);
        BigEndian.putU8(dst, offset + CLASS_VERSION_OFFSET, CM_CLASS_VERSION);
        BigEndian.putU8(dst, offset + METHOD_OFFSET, METHOD_SEND);
        BigEndian.putU64(dst, offset + TID_OFFSET, mad.transactionId());
        BigEndian.putU16(dst, offset + ATTR_ID_OFFSET, m.attributeId());
        long d = offset + CM_DATA_OFFSET;
        switch (m) {
            case Req r -> {
                BigEndian.putU32(dst, offset + ATTR_MOD_OFFSET, r.eceOptions());
                encodeReq(r, dst, d);
            }
            case Mra r -> {
                ids(dst, d, r.localCommId(), r.remoteCommId());
                BigEndian.putU8(dst, d + MRA_MESSAGE_MRAED, r.messageMraed() << 6);
                BigEndian.putU8(dst, d + MRA_SERVICE_TIMEOUT, r.serviceTimeout() << 3);
                privateData(dst, d + MRA_PRIVATE_DATA, r.privateData());
            }
            case Rej r -> {
                ids(dst, d, r.localCommId(), r.remoteCommId());
                BigEndian.putU8(dst, d + REJ_MESSAGE_REJECTED, r.messageRejected() << 6);
                BigEndian.putU8(dst, d + REJ_ARI_LENGTH, r.additionalRejectInfo().length() << 1);
                BigEndian.putU16(dst, d + REJ_REASON, r.reason());
                privateData(dst, d + REJ_ARI, r.additionalRejectInfo());
                privateData(dst, d + REJ_PRIVATE_DATA, r.privateData());
            }
            case Rep r -> {
                BigEndian.putU32(dst, offset + ATTR_MOD_OFFSET, r.eceOptions());
                encodeRep(r, dst, d);
            }
            case Rtu r -> {
                ids(dst, d, r.localCommId(), r.remoteCommId());
                privateData(dst, d + RTU_PRIVATE_DATA, r.privateData());
            }
            case Dreq r -> {
                ids(dst, d, r.localCommId(), r.remoteCommId());
                BigEndian.putU24(dst, d + DREQ_REMOTE_QPN, r.remoteQpnEecn());
                privateData(dst, d + DREQ_PRIVATE_DATA, r.privateData());
            }
            case Drep r -> {
                ids(dst, d, r.localCommId(), r.remoteCommId());
                privateData(dst, d + DREP_PRIVATE_DATA, r.privateData());
            }
            case SidrReq r -> {
                BigEndian.putU32(dst, d + SIDR_REQUEST_ID, r.requestId());
                BigEndian.putU16(dst, d + SIDR_REQ_PARTITION_KEY, r.partitionKey());
                BigEndian.putU64(dst, d + SIDR_REQ_SERVICE_ID, r.serviceId());
                privateData(dst, d + SIDR_REQ_PRIVATE_DATA, r.privateData());
            }
            case SidrRep r -> {
                BigEndian.putU32(dst, offset + ATTR_MOD_OFFSET, r.eceOptions());
                BigEndian.putU32(dst, d + SIDR_REQUEST_ID, r.requestId());
                BigEndian.putU8(dst, d + SIDR_REP_STATUS, r.status());
                BigEndian.putU8(dst, d + SIDR_REP_INFO_LENGTH, r.additionalInfo().length());
                BigEndian.putU16(dst, d + SIDR_REP_VENDOR_ID_H, r.vendorId() >>> 8);
                BigEndian.putU24(dst, d + SIDR_REP_QPN, r.qpn());
                BigEndian.putU8(dst, d + SIDR_REP_VENDOR_ID_L, r.vendorId());
                BigEndian.putU64(dst, d + SIDR_REP_SERVICE_ID, r.serviceId());
                BigEndian.putU32(dst, d + SIDR_REP_QKEY, r.qkey());
                privateData(dst, d + SIDR_REP_INFO, r.additionalInfo());
                privateData(dst, d + SIDR_REP_PRIVATE_DATA, r.privateData());
            }
        }
    }

    /**
     * The 256-byte MAD as a new array.
     *
     * @param mad the MAD
     * @return the bytes
     */
    public static byte[] encode(CmMad mad) {
        byte[] b = new byte[MAD_LENGTH];
        encode(mad, MemorySegment.ofArray(b), 0);
        return b;
    }

    /**
     * Writes a QP1 datagram (the UDP payload of a RoCEv2 packet) carrying the MAD: BTH (UD SEND
     * Only, no SE, pad 0, {@code pkey}, dest QP 1, AckReq as rxe sends it, {@code psn}), DETH
     * (Q_Key 0x80010000, src QP 1), the MAD, and a zero ICRC that the sender seals once the IP
     * addressing is known (the CM: {@code RxePort.seal}; tests: {@link Icrc#sealIpv4ForSend}).
     *
     * @param mad the MAD
     * @param pkey the P_Key (0xFFFF)
     * @param psn the sending QP1's PSN
     * @param dst destination buffer
     * @param offset where the BTH starts
     * @return the datagram length, {@link #DATAGRAM_LENGTH}
     */
    public static int encodeDatagram(CmMad mad, int pkey, int psn, MemorySegment dst, long offset) {
        new Bth().wrap(dst, offset).init(IbOpcode.UD_SEND_ONLY.code(), false, false, 0, pkey, QP1, true, psn);
        new Deth().wrap(dst, offset + Bth.LENGTH).qkey(Deth.GSI_QKEY).srcQpn(QP1);
        encode(mad, dst, offset + DATAGRAM_MAD_OFFSET);
        Icrc.store(dst, offset, DATAGRAM_LENGTH, 0);
        return DATAGRAM_LENGTH;
    }

    private static void encodeReq(Req r, MemorySegment dst, long d) {
        BigEndian.putU32(dst, d + REQ_LOCAL_COMM_ID, r.localCommId());
        BigEndian.putU24(dst, d + REQ_VENDOR_ID, r.vendorId());
        BigEndian.putU64(dst, d + REQ_SERVICE_ID, r.serviceId());
        BigEndian.putU64(dst, d + REQ_LOCAL_CA_GUID, r.localCaGuid());
        BigEndian.putU32(dst, d + REQ_LOCAL_QKEY, r.localQkey());
        BigEndian.putU24(dst, d + REQ_LOCAL_QPN, r.localQpn());
        BigEndian.putU8(dst, d + REQ_RESPONDER_RESOURCES, r.responderResources());
        BigEndian.putU24(dst, d + REQ_LOCAL_EECN, r.localEecn());
        BigEndian.putU8(dst, d + REQ_INITIATOR_DEPTH, r.initiatorDepth());
        BigEndian.putU24(dst, d + REQ_REMOTE_EECN, r.remoteEecn());
        BigEndian.putU8(dst, d + REQ_TIMEOUT_TRANSPORT, r.remoteCmResponseTimeout() << 3
                | r.transportServiceType() << 1 | bit(r.endToEndFlowControl()));
        BigEndian.putU24(dst, d + REQ_STARTING_PSN, r.startingPsn());
        BigEndian.putU8(dst, d + REQ_TIMEOUT_RETRY, r.localCmResponseTimeout() << 3 | r.retryCount());
        BigEndian.putU16(dst, d + REQ_PARTITION_KEY, r.partitionKey());
        BigEndian.putU8(dst, d + REQ_MTU_RDC_RNR, r.pathMtu() << 4 | bit(r.rdcExists()) << 3 | r.rnrRetryCount());
        BigEndian.putU8(dst, d + REQ_CM_RETRIES_SRQ_EXT, r.maxCmRetries() << 4 | bit(r.srq()) << 3
                | r.extendedTransportType());
        encodePath(r.primaryPath(), dst, d + REQ_PRIMARY_PATH);
        encodePath(r.alternatePath(), dst, d + REQ_ALTERNATE_PATH);
        if (r.sapSupported()) {
            long at = d + REQ_ALTERNATE_PATH + PATH_ACK_TIMEOUT;
            BigEndian.putU8(dst, at, BigEndian.u8(dst, at) | FLAG_SAP_SUPPORTED);
        }
        privateData(dst, d + REQ_PRIVATE_DATA, r.privateData());
    }

    private static void encodePath(CmPath p, MemorySegment dst, long at) {
        BigEndian.putU16(dst, at + PATH_LOCAL_LID, p.localLid());
        BigEndian.putU16(dst, at + PATH_REMOTE_LID, p.remoteLid());
        MemorySegment.copy(p.localGid().raw(), 0, dst, ValueLayout.JAVA_BYTE,
                at + PATH_LOCAL_GID, GID_LENGTH);
        MemorySegment.copy(p.remoteGid().raw(), 0, dst, ValueLayout.JAVA_BYTE,
                at + PATH_REMOTE_GID, GID_LENGTH);
        BigEndian.putU32(dst, at + PATH_FLOW_LABEL_RATE, p.flowLabel() << 12 | p.packetRate());
        BigEndian.putU8(dst, at + PATH_TRAFFIC_CLASS, p.trafficClass());
        BigEndian.putU8(dst, at + PATH_HOP_LIMIT, p.hopLimit());
        BigEndian.putU8(dst, at + PATH_SL_SUBNET_LOCAL, p.sl() << 4 | bit(p.subnetLocal()) << 3);
        BigEndian.putU8(dst, at + PATH_ACK_TIMEOUT, p.localAckTimeout() << 3);
    }

    private static void encodeRep(Rep r, MemorySegment dst, long d) {
        ids(dst, d, r.localCommId(), r.remoteCommId());
        BigEndian.putU32(dst, d + REP_LOCAL_QKEY, r.localQkey());
        BigEndian.putU24(dst, d + REP_LOCAL_QPN, r.localQpn());
        BigEndian.putU8(dst, d + REP_VENDOR_ID_H, r.vendorId() >>> 16);
        BigEndian.putU24(dst, d + REP_LOCAL_EECN, r.localEecn());
        BigEndian.putU8(dst, d + REP_VENDOR_ID_M, r.vendorId() >>> 8);
        BigEndian.putU24(dst, d + REP_STARTING_PSN, r.startingPsn());
        BigEndian.putU8(dst, d + REP_VENDOR_ID_L, r.vendorId());
        BigEndian.putU8(dst, d + REP_RESPONDER_RESOURCES, r.responderResources());
        BigEndian.putU8(dst, d + REP_INITIATOR_DEPTH, r.initiatorDepth());
        BigEndian.putU8(dst, d + REP_ACK_DELAY_FAILOVER_FC, r.targetAckDelay() << 3 | r.failoverAccepted() << 1
                | bit(r.endToEndFlowControl()));
        BigEndian.putU8(dst, d + REP_RNR_SRQ, r.rnrRetryCount() << 5 | bit(r.srq()) << 4);
        BigEndian.putU64(dst, d + REP_LOCAL_CA_GUID, r.localCaGuid());
        privateData(dst, d + REP_PRIVATE_DATA, r.privateData());
    }

    private static void ids(MemorySegment dst, long d, int local, int remote) {
        BigEndian.putU32(dst, d + LOCAL_COMM_ID, local);
        BigEndian.putU32(dst, d + REMOTE_COMM_ID, remote);
    }

    private static void privateData(MemorySegment dst, long at, Octets data) {
        byte[] b = data.toByteArray();
        MemorySegment.copy(b, 0, dst, ValueLayout.JAVA_BYTE, at, b.length);
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }

    // ------------------------------------------------------------------------------------- decode

    /**
     * Decodes a 256-byte MAD.
     *
     * @param src buffer
     * @param offset where the MAD starts
     * @param length bytes available from {@code offset}
     * @return the MAD, or why it is not one; never throws for any content
     */
    public static CmDecodeResult decode(MemorySegment src, long offset, long length) {
        if (length < MAD_LENGTH || offset < 0 || src.byteSize() - offset < MAD_LENGTH) {
            return malformed(CmDecodeResult.Error.TRUNCATED, "a MAD is " + MAD_LENGTH + " bytes, got " + length);
        }
        int base = BigEndian.u8(src, offset + BASE_VERSION_OFFSET);
        if (base != BASE_VERSION) {
            return malformed(CmDecodeResult.Error.BAD_BASE_VERSION, "base version " + base);
        }
        int cls = BigEndian.u8(src, offset + MGMT_CLASS_OFFSET);
        if (cls != MGMT_CLASS_CM) {
            return malformed(CmDecodeResult.Error.NOT_CM_CLASS, String.format("management class 0x%02x", cls));
        }
        int version = BigEndian.u8(src, offset + CLASS_VERSION_OFFSET);
        if (version != CM_CLASS_VERSION) {
            return malformed(CmDecodeResult.Error.BAD_CLASS_VERSION, "CM class version " + version);
        }
        int method = BigEndian.u8(src, offset + METHOD_OFFSET);
        if (method != METHOD_SEND) {
            return malformed(CmDecodeResult.Error.BAD_METHOD, String.format("method 0x%02x", method));
        }
        long tid = BigEndian.u64(src, offset + TID_OFFSET);
        int attr = BigEndian.u16(src, offset + ATTR_ID_OFFSET);
        int attrMod = BigEndian.u32(src, offset + ATTR_MOD_OFFSET);
        long d = offset + CM_DATA_OFFSET;
        CmMessage m;
        switch (attr) {
            case CmMessage.ATTR_REQ -> m = decodeReq(src, d, attrMod);
            case CmMessage.ATTR_MRA -> m = new Mra(u32(src, d, LOCAL_COMM_ID), u32(src, d, REMOTE_COMM_ID),
                    BigEndian.u8(src, d + MRA_MESSAGE_MRAED) >>> 6, BigEndian.u8(src, d + MRA_SERVICE_TIMEOUT) >>> 3,
                    octets(src, d + MRA_PRIVATE_DATA, Mra.PRIVATE_DATA_LIMIT));
            case CmMessage.ATTR_REJ -> {
                int ariLength = BigEndian.u8(src, d + REJ_ARI_LENGTH) >>> 1;
                if (ariLength > Rej.ARI_LIMIT) {
                    return malformed(CmDecodeResult.Error.BAD_FIELD, "REJ ARI length " + ariLength + " > 72");
                }
                m = new Rej(u32(src, d, LOCAL_COMM_ID), u32(src, d, REMOTE_COMM_ID),
                        BigEndian.u8(src, d + REJ_MESSAGE_REJECTED) >>> 6, BigEndian.u16(src, d + REJ_REASON),
                        octets(src, d + REJ_ARI, ariLength), octets(src, d + REJ_PRIVATE_DATA, Rej.PRIVATE_DATA_LIMIT));
            }
            case CmMessage.ATTR_REP -> m = decodeRep(src, d, attrMod);
            case CmMessage.ATTR_RTU -> m = new Rtu(u32(src, d, LOCAL_COMM_ID), u32(src, d, REMOTE_COMM_ID),
                    octets(src, d + RTU_PRIVATE_DATA, Rtu.PRIVATE_DATA_LIMIT));
            case CmMessage.ATTR_DREQ -> m = new Dreq(u32(src, d, LOCAL_COMM_ID), u32(src, d, REMOTE_COMM_ID),
                    BigEndian.u24(src, d + DREQ_REMOTE_QPN),
                    octets(src, d + DREQ_PRIVATE_DATA, Dreq.PRIVATE_DATA_LIMIT));
            case CmMessage.ATTR_DREP -> m = new Drep(u32(src, d, LOCAL_COMM_ID), u32(src, d, REMOTE_COMM_ID),
                    octets(src, d + DREP_PRIVATE_DATA, Drep.PRIVATE_DATA_LIMIT));
            case CmMessage.ATTR_SIDR_REQ -> m = new SidrReq(u32(src, d, SIDR_REQUEST_ID),
                    BigEndian.u16(src, d + SIDR_REQ_PARTITION_KEY), BigEndian.u64(src, d + SIDR_REQ_SERVICE_ID),
                    octets(src, d + SIDR_REQ_PRIVATE_DATA, SidrReq.PRIVATE_DATA_LIMIT));
            case CmMessage.ATTR_SIDR_REP -> {
                int infoLength = BigEndian.u8(src, d + SIDR_REP_INFO_LENGTH);
                if (infoLength > SidrRep.ADDITIONAL_INFO_LIMIT) {
                    return malformed(CmDecodeResult.Error.BAD_FIELD,
                            "SIDR_REP additional information length " + infoLength + " > 72");
                }
                int vendorId = BigEndian.u16(src, d + SIDR_REP_VENDOR_ID_H) << 8
                        | BigEndian.u8(src, d + SIDR_REP_VENDOR_ID_L);
                m = new SidrRep(u32(src, d, SIDR_REQUEST_ID), BigEndian.u8(src, d + SIDR_REP_STATUS),
                        octets(src, d + SIDR_REP_INFO, infoLength), vendorId, BigEndian.u24(src, d + SIDR_REP_QPN),
                        BigEndian.u64(src, d + SIDR_REP_SERVICE_ID), u32(src, d, SIDR_REP_QKEY), attrMod,
                        octets(src, d + SIDR_REP_PRIVATE_DATA, SidrRep.PRIVATE_DATA_LIMIT));
            }
            default -> {
                return malformed(CmDecodeResult.Error.UNKNOWN_ATTRIBUTE,
                        "attribute " + CmMessage.attributeName(attr) + " is not decoded here");
            }
        }
        return new CmDecodeResult.Decoded(new CmMad(tid, m));
    }

    /**
     * Decodes a QP1 datagram: checks BTH (UD SEND Only to QP 1) and DETH (Q_Key 0x80010000), then
     * decodes the MAD. The ICRC is not checked here (see {@link Icrc}).
     *
     * @param src buffer holding the UDP payload
     * @param offset where the BTH starts
     * @param length UDP payload length, ICRC included
     * @return the MAD, or why the datagram is not a CM MAD; never throws for any content
     */
    public static CmDecodeResult decodeDatagram(MemorySegment src, long offset, long length) {
        if (length < DATAGRAM_LENGTH || offset < 0 || src.byteSize() - offset < length) {
            return malformed(CmDecodeResult.Error.TRUNCATED, "a QP1 datagram is " + DATAGRAM_LENGTH + " bytes, got "
                    + length);
        }
        Bth bth = new Bth().wrap(src, offset);
        if (bth.opcode() != IbOpcode.UD_SEND_ONLY.code()) {
            return malformed(CmDecodeResult.Error.BAD_OPCODE, String.format("opcode 0x%02x", bth.opcode()));
        }
        if (bth.destQpn() != QP1) {
            return malformed(CmDecodeResult.Error.NOT_QP1, "destination QP " + bth.destQpn());
        }
        if (length - bth.padCount() != DATAGRAM_LENGTH) {
            return malformed(CmDecodeResult.Error.BAD_LENGTH, "datagram of " + length + " bytes with pad "
                    + bth.padCount());
        }
        int qkey = new Deth().wrap(src, offset + Bth.LENGTH).qkey();
        if (qkey != Deth.GSI_QKEY) {
            return malformed(CmDecodeResult.Error.BAD_QKEY, String.format("Q_Key 0x%08x", qkey));
        }
        return decode(src, offset + DATAGRAM_MAD_OFFSET, MAD_LENGTH);
    }

    private static Req decodeReq(MemorySegment src, long d, int attrMod) {
        int timeoutTransport = BigEndian.u8(src, d + REQ_TIMEOUT_TRANSPORT);
        int timeoutRetry = BigEndian.u8(src, d + REQ_TIMEOUT_RETRY);
        int mtuRdcRnr = BigEndian.u8(src, d + REQ_MTU_RDC_RNR);
        int retriesSrqExt = BigEndian.u8(src, d + REQ_CM_RETRIES_SRQ_EXT);
        boolean sap = (BigEndian.u8(src, d + REQ_ALTERNATE_PATH + PATH_ACK_TIMEOUT) & FLAG_SAP_SUPPORTED) != 0;
        return new Req(u32(src, d, REQ_LOCAL_COMM_ID), BigEndian.u24(src, d + REQ_VENDOR_ID),
                BigEndian.u64(src, d + REQ_SERVICE_ID), BigEndian.u64(src, d + REQ_LOCAL_CA_GUID),
                u32(src, d, REQ_LOCAL_QKEY), BigEndian.u24(src, d + REQ_LOCAL_QPN),
                BigEndian.u8(src, d + REQ_RESPONDER_RESOURCES), BigEndian.u24(src, d + REQ_LOCAL_EECN),
                BigEndian.u8(src, d + REQ_INITIATOR_DEPTH), BigEndian.u24(src, d + REQ_REMOTE_EECN),
                timeoutTransport >>> 3, (timeoutTransport >>> 1) & 0x3, (timeoutTransport & 1) != 0,
                BigEndian.u24(src, d + REQ_STARTING_PSN), timeoutRetry >>> 3, timeoutRetry & 0x7,
                BigEndian.u16(src, d + REQ_PARTITION_KEY), mtuRdcRnr >>> 4, (mtuRdcRnr & 0x8) != 0, mtuRdcRnr & 0x7,
                retriesSrqExt >>> 4, (retriesSrqExt & 0x8) != 0, retriesSrqExt & 0x7,
                decodePath(src, d + REQ_PRIMARY_PATH), decodePath(src, d + REQ_ALTERNATE_PATH), sap, attrMod,
                octets(src, d + REQ_PRIVATE_DATA, Req.PRIVATE_DATA_LIMIT));
    }

    private static CmPath decodePath(MemorySegment src, long at) {
        int flowRate = BigEndian.u32(src, at + PATH_FLOW_LABEL_RATE);
        int slSubnet = BigEndian.u8(src, at + PATH_SL_SUBNET_LOCAL);
        return new CmPath(BigEndian.u16(src, at + PATH_LOCAL_LID), BigEndian.u16(src, at + PATH_REMOTE_LID),
                gid(src, at + PATH_LOCAL_GID), gid(src, at + PATH_REMOTE_GID), flowRate >>> 12, flowRate & 0x3f,
                BigEndian.u8(src, at + PATH_TRAFFIC_CLASS), BigEndian.u8(src, at + PATH_HOP_LIMIT), slSubnet >>> 4,
                (slSubnet & 0x8) != 0, BigEndian.u8(src, at + PATH_ACK_TIMEOUT) >>> 3);
    }

    private static Rep decodeRep(MemorySegment src, long d, int attrMod) {
        int vendorId = BigEndian.u8(src, d + REP_VENDOR_ID_H) << 16 | BigEndian.u8(src, d + REP_VENDOR_ID_M) << 8
                | BigEndian.u8(src, d + REP_VENDOR_ID_L);
        int delayFailoverFc = BigEndian.u8(src, d + REP_ACK_DELAY_FAILOVER_FC);
        int rnrSrq = BigEndian.u8(src, d + REP_RNR_SRQ);
        return new Rep(u32(src, d, LOCAL_COMM_ID), u32(src, d, REMOTE_COMM_ID), u32(src, d, REP_LOCAL_QKEY),
                BigEndian.u24(src, d + REP_LOCAL_QPN), vendorId, BigEndian.u24(src, d + REP_LOCAL_EECN),
                BigEndian.u24(src, d + REP_STARTING_PSN), BigEndian.u8(src, d + REP_RESPONDER_RESOURCES),
                BigEndian.u8(src, d + REP_INITIATOR_DEPTH), delayFailoverFc >>> 3, (delayFailoverFc >>> 1) & 0x3,
                (delayFailoverFc & 1) != 0, rnrSrq >>> 5, (rnrSrq & 0x10) != 0,
                BigEndian.u64(src, d + REP_LOCAL_CA_GUID), attrMod,
                octets(src, d + REP_PRIVATE_DATA, Rep.PRIVATE_DATA_LIMIT));
    }

    private static int u32(MemorySegment src, long d, int field) {
        return BigEndian.u32(src, d + field);
    }

    private static Gid gid(MemorySegment src, long at) {
        return new Gid(src.asSlice(at, GID_LENGTH).toArray(ValueLayout.JAVA_BYTE));
    }

    private static Octets octets(MemorySegment src, long at, int length) {
        return Octets.of(src.asSlice(at, length).toArray(ValueLayout.JAVA_BYTE));
    }

    private static CmDecodeResult malformed(CmDecodeResult.Error error, String detail) {
        return new CmDecodeResult.Malformed(error, detail);
    }
}
