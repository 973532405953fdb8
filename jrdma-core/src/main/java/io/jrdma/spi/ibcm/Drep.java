package io.jrdma.spi.ibcm;

/**
 * DisconnectReply, DREP (IBTA Vol 1 §12.6.11, Table 113).
 *
 * @param localCommId the sender's communication id
 * @param remoteCommId the receiver's communication id
 * @param privateData private data, at most 224 bytes
 */
public record Drep(int localCommId, int remoteCommId, Octets privateData) implements CmMessage {

    /** Size of the private-data field. */
    public static final int PRIVATE_DATA_LIMIT = 224;

    /** Checks the private-data limit. */
    public Drep {
        CmLimits.upTo("privateData", privateData, PRIVATE_DATA_LIMIT);
    }

    @Override
    public int attributeId() {
        return ATTR_DREP;
    }

    @Override
    public int privateDataLimit() {
        return PRIVATE_DATA_LIMIT;
    }
}
