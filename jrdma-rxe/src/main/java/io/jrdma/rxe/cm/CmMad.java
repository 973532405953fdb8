package io.jrdma.rxe.cm;

import io.jrdma.spi.ibcm.CmMessage;



/**
 * A CM MAD: the message plus the one MAD-header field that varies, the transaction id. Linux's
 * ib_cm forms the TID as the MAD agent's high 32 bits and the sender's local comm id in host
 * (little-endian) byte order, and answers REP, RTU, MRA and REJ with the TID of the REQ they belong
 * to; a passive side's DREQ gets a fresh TID (verified with Linux 6.1 captures).
 *
 * @param transactionId the MAD transaction id
 * @param message the CM message
 */
public record CmMad(long transactionId, CmMessage message) {
    /** Checks the message is present. */
    public CmMad {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
    }
}
