package io.jrdma.cm;

/**
 * iWARP connection parameters ({@code struct iw_cm_conn_param}).
 *
 * @param privateData private data for the MPA request or reply (at most 256 bytes with the MPA v2 block)
 * @param ord outbound RDMA READ depth
 * @param ird inbound RDMA READ depth
 * @param qpn the QP to attach
 */
public record IwConnParam(byte[] privateData, int ord, int ird, int qpn) {
    /**
     * Copies the private data and checks the ranges (MPA v2 carries 14-bit IRD/ORD). Linux:
     * {@code struct iw_cm_conn_param}.
     */
    public IwConnParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (ord < 0 || ord > 0x3FFF || ird < 0 || ird > 0x3FFF) {
            throw new IllegalArgumentException("IRD/ORD are 14-bit values on MPA v2: " + ird + "/" + ord);
        }
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
