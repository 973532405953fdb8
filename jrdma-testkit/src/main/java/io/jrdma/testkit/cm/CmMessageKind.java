package io.jrdma.testkit.cm;

/**
 * The connection-establishment messages a fixture can drop, named after the IB CM's (IBTA Vol 1
 * ch. 12). An iWARP fixture maps REQ to the MPA request, REP to the MPA reply and REJ to an MPA
 * reject; it has no RTU, MRA, DREQ/DREP or SIDR.
 */
public enum CmMessageKind {
    /** ConnectRequest. */
    REQ,
    /** ConnectReply. */
    REP,
    /** ReadyToUse. */
    RTU,
    /** ConnectReject. */
    REJ,
    /** MsgRcptAck. */
    MRA,
    /** DisconnectRequest. */
    DREQ,
    /** DisconnectReply. */
    DREP,
    /** ServiceIDResReq. */
    SIDR_REQ,
    /** ServiceIDResReqResp. */
    SIDR_REP
}
