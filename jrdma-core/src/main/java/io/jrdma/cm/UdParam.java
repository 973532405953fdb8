package io.jrdma.cm;

import io.jrdma.verbs.AhAttr;

/**
 * Unconnected-datagram parameters ({@code struct rdma_ud_param}): what ESTABLISHED carries for a
 * UDP-port-space id, and CONNECT_REQUEST for a SIDR request.
 *
 * @param privateData private data of the SIDR request or reply
 * @param ahAttr address vector of the remote side
 * @param qpNum the remote QP number
 * @param qkey the remote Q_Key
 */
public record UdParam(byte[] privateData, AhAttr ahAttr, int qpNum, int qkey) {
    /** Copies the private data. Linux: {@code struct rdma_ud_param}. */
    public UdParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
