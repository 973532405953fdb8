package io.jrdma.internal.cm;

import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.internal.verbs.Unpredictable;

/**
 * What a connection negotiated, as the protocol ran: the values the CM gives the id's QP at RTR and RTS
 * and reports in the events. An id holds one at a time ({@link CmIdImpl#negotiated()}) and replaces it
 * whole ({@link CmIdImpl#negotiate}), so a reader sees one exchange's values together.
 *
 * @param localPsn the starting PSN of our REQ or REP (24 bits): the PSN this side expects to receive,
 *     its QP's rq_psn (Linux cm.c sets {@code rq_psn} from its own REQ/REP and {@code sq_psn} from the
 *     peer's; verified against Linux 6.1 rxe, see jrdma-rxe's golden README)
 * @param remotePsn the starting PSN of the peer's REQ or REP: the PSN this side sends from, its QP's sq_psn
 * @param remoteQpn the remote QP number
 * @param remoteQkey the remote Q_Key (UD)
 * @param responderResources our responder resources (IRD)
 * @param initiatorDepth our initiator depth (ORD), never more than the peer's IRD once negotiated
 * @param retryCount the transport retry count for the QP
 * @param rnrRetryCount the RNR retry count for the QP
 * @param localAckTimeout the local ACK timeout the CM computed (IB time exponent)
 * @param peerIrd the remote side's IRD, as the connection request or reply said
 * @param remoteEce the remote side's ECE
 */
public record Negotiated(int localPsn, int remotePsn, int remoteQpn, int remoteQkey, int responderResources,
        int initiatorDepth, int retryCount, int rnrRetryCount, int localAckTimeout, int peerIrd, Ece remoteEce) {

    /** A new id's values: a random starting PSN, one outstanding read each way, infinite retries. */
    static Negotiated initial() {
        return new Negotiated(Unpredictable.psn(), 0, 0, 0, 1, 1, 7, 7, 19, 1, Ece.NONE);
    }

    /** The parameters an IB ESTABLISHED event reports: the depths, retry counts and the peer's QP. */
    public ConnParam established() {
        return new ConnParam(null, responderResources, initiatorDepth, false, retryCount, rnrRetryCount, false,
                remoteQpn);
    }

    /** These values with the peer's QP number and starting PSN. */
    public Negotiated withRemote(int qpn, int psn) {
        return new Negotiated(localPsn, psn, qpn, remoteQkey, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, peerIrd, remoteEce);
    }

    /** These values with the peer's UD QP number and Q_Key. */
    public Negotiated withRemoteUd(int qpn, int qkey) {
        return new Negotiated(localPsn, remotePsn, qpn, qkey, responderResources, initiatorDepth, retryCount,
                rnrRetryCount, localAckTimeout, peerIrd, remoteEce);
    }

    /** These values with our responder resources and initiator depth. */
    public Negotiated withDepths(int responder, int initiator) {
        return new Negotiated(localPsn, remotePsn, remoteQpn, remoteQkey, responder, initiator, retryCount,
                rnrRetryCount, localAckTimeout, peerIrd, remoteEce);
    }

    /** These values with the peer's IRD. */
    public Negotiated withPeerIrd(int ird) {
        return new Negotiated(localPsn, remotePsn, remoteQpn, remoteQkey, responderResources, initiatorDepth,
                retryCount, rnrRetryCount, localAckTimeout, ird, remoteEce);
    }

    /** These values with the transport and RNR retry counts. */
    public Negotiated withRetries(int retry, int rnrRetry) {
        return new Negotiated(localPsn, remotePsn, remoteQpn, remoteQkey, responderResources, initiatorDepth,
                retry, rnrRetry, localAckTimeout, peerIrd, remoteEce);
    }

    /** These values with the local ACK timeout. */
    public Negotiated withLocalAckTimeout(int timeout) {
        return new Negotiated(localPsn, remotePsn, remoteQpn, remoteQkey, responderResources, initiatorDepth,
                retryCount, rnrRetryCount, timeout, peerIrd, remoteEce);
    }

    /** These values with the peer's ECE. */
    public Negotiated withRemoteEce(Ece ece) {
        return new Negotiated(localPsn, remotePsn, remoteQpn, remoteQkey, responderResources, initiatorDepth,
                retryCount, rnrRetryCount, localAckTimeout, peerIrd, ece == null ? Ece.NONE : ece);
    }
}
