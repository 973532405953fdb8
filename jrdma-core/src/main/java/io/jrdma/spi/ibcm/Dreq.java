package io.jrdma.spi.ibcm;

/**
 * DisconnectRequest, DREQ (IBTA Vol 1 §12.6.10, Table 112).
 *
 * @param localCommId the sender's communication id
 * @param remoteCommId the receiver's communication id
 * @param remoteQpnEecn the receiver's QPN (or EECN), 24 bits
 * @param privateData private data, at most 220 bytes
 */
public record Dreq(int localCommId, int remoteCommId, int remoteQpnEecn, Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 220;

    /** Checks the QPN width and the private-data limit. */
    public Dreq {
        CmLimits.bits("remoteQpnEecn", remoteQpnEecn, 24);
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_DREQ;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
