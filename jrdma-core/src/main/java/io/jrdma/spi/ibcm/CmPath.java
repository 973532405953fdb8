package io.jrdma.spi.ibcm;

import io.jrdma.verbs.Gid;

/**
 * The path information a REQ carries twice, for the primary and the alternate path (IBTA Vol 1
 * Table 106, bytes 52-95 and 96-139 of the CM data). On routable RoCEv2 Linux sets both LIDs to the
 * permissive LID 0xFFFF, the GIDs to the (IPv4-mapped) IP addresses and subnet-local to 0
 * ({@code cm.c cm_format_req}).
 *
 * @param localLid local port LID, 16 bits
 * @param remoteLid remote port LID, 16 bits
 * @param localGid local port GID
 * @param remoteGid remote port GID
 * @param flowLabel flow label, 20 bits
 * @param packetRate packet rate, 6 bits
 * @param trafficClass traffic class, 8 bits
 * @param hopLimit hop limit, 8 bits
 * @param sl service level, 4 bits
 * @param subnetLocal subnet local bit
 * @param localAckTimeout local ACK timeout (4.096 µs * 2^t), 5 bits
 */
public record CmPath(int localLid, int remoteLid, Gid localGid, Gid remoteGid, int flowLabel, int packetRate,
        int trafficClass, int hopLimit, int sl, boolean subnetLocal, int localAckTimeout) {

    /** The all-zero path: how a REQ without an alternate path carries it. */
    public static final CmPath NONE = new CmPath(0, 0, Gid.ZERO, Gid.ZERO, 0, 0, 0, 0, 0, false, 0);

    /** Checks every field's width. */
    public CmPath {
        CmLimits.bits("localLid", localLid, 16);
        CmLimits.bits("remoteLid", remoteLid, 16);
        CmLimits.notNull("localGid", localGid);
        CmLimits.notNull("remoteGid", remoteGid);
        CmLimits.bits("flowLabel", flowLabel, 20);
        CmLimits.bits("packetRate", packetRate, 6);
        CmLimits.bits("trafficClass", trafficClass, 8);
        CmLimits.bits("hopLimit", hopLimit, 8);
        CmLimits.bits("sl", sl, 4);
        CmLimits.bits("localAckTimeout", localAckTimeout, 5);
    }
}
