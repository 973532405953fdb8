package io.jrdma.rxe.cm;

import io.jrdma.rxe.testing.Gen;
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

/** Generators of arbitrary, valid CM records: every field anywhere within its width. */
final class CmMessages {
    private CmMessages() {
    }

    static Octets upTo(Gen g, int limit) {
        return Octets.of(g.bytes(0, limit));
    }

    static Gid gid(Gen g) {
        return new Gid(g.bytes(16));
    }

    static CmPath path(Gen g) {
        return new CmPath(g.bits(16), g.bits(16), gid(g), gid(g), g.bits(20), g.bits(6), g.bits(8), g.bits(8),
                g.bits(4), g.bool(), g.bits(5));
    }

    static Req req(Gen g) {
        return new Req(g.anyInt(), g.bits(24), g.anyLong(), g.anyLong(), g.anyInt(), g.bits(24), g.bits(8),
                g.bits(24), g.bits(8), g.bits(24), g.bits(5), g.bits(2), g.bool(), g.bits(24), g.bits(5), g.bits(3),
                g.bits(16), g.bits(4), g.bool(), g.bits(3), g.bits(4), g.bool(), g.bits(3), path(g), path(g),
                g.bool(), g.anyInt(), upTo(g, Req.PRIVATE_DATA_LIMIT));
    }

    static Rep rep(Gen g) {
        return new Rep(g.anyInt(), g.anyInt(), g.anyInt(), g.bits(24), g.bits(24), g.bits(24), g.bits(24), g.bits(8),
                g.bits(8), g.bits(5), g.bits(2), g.bool(), g.bits(3), g.bool(), g.anyLong(), g.anyInt(),
                upTo(g, Rep.PRIVATE_DATA_LIMIT));
    }

    /** Any CM message, each of the nine kinds equally likely. */
    static CmMessage any(Gen g) {
        return switch (g.intBetween(0, 8)) {
            case 0 -> req(g);
            case 1 -> new Mra(g.bits(32), g.bits(32), g.bits(2), g.bits(5), upTo(g, Mra.PRIVATE_DATA_LIMIT));
            case 2 -> new Rej(g.bits(32), g.bits(32), g.bits(2), g.bits(16), upTo(g, Rej.ARI_LIMIT),
                    upTo(g, Rej.PRIVATE_DATA_LIMIT));
            case 3 -> rep(g);
            case 4 -> new Rtu(g.bits(32), g.bits(32), upTo(g, Rtu.PRIVATE_DATA_LIMIT));
            case 5 -> new Dreq(g.bits(32), g.bits(32), g.bits(24), upTo(g, Dreq.PRIVATE_DATA_LIMIT));
            case 6 -> new Drep(g.bits(32), g.bits(32), upTo(g, Drep.PRIVATE_DATA_LIMIT));
            case 7 -> new SidrReq(g.bits(32), g.bits(16), g.anyLong(), upTo(g, SidrReq.PRIVATE_DATA_LIMIT));
            default -> new SidrRep(g.bits(32), g.bits(8), upTo(g, SidrRep.ADDITIONAL_INFO_LIMIT), g.bits(24),
                    g.bits(24), g.anyLong(), g.bits(32), g.bits(32), upTo(g, SidrRep.PRIVATE_DATA_LIMIT));
        };
    }

    /** The message as decoding returns it: private data padded to the field size. */
    static CmMessage padded(CmMessage m) {
        return switch (m) {
            case Req r -> new Req(r.localCommId(), r.vendorId(), r.serviceId(), r.localCaGuid(), r.localQkey(),
                    r.localQpn(), r.responderResources(), r.localEecn(), r.initiatorDepth(), r.remoteEecn(),
                    r.remoteCmResponseTimeout(), r.transportServiceType(), r.endToEndFlowControl(), r.startingPsn(),
                    r.localCmResponseTimeout(), r.retryCount(), r.partitionKey(), r.pathMtu(), r.rdcExists(),
                    r.rnrRetryCount(), r.maxCmRetries(), r.srq(), r.extendedTransportType(), r.primaryPath(),
                    r.alternatePath(), r.sapSupported(), r.eceOptions(),
                    r.privateData().resize(Req.PRIVATE_DATA_LIMIT));
            case Mra r -> new Mra(r.localCommId(), r.remoteCommId(), r.messageMraed(), r.serviceTimeout(),
                    r.privateData().resize(Mra.PRIVATE_DATA_LIMIT));
            case Rej r -> new Rej(r.localCommId(), r.remoteCommId(), r.messageRejected(), r.reason(),
                    r.additionalRejectInfo(), r.privateData().resize(Rej.PRIVATE_DATA_LIMIT));
            case Rep r -> new Rep(r.localCommId(), r.remoteCommId(), r.localQkey(), r.localQpn(), r.vendorId(),
                    r.localEecn(), r.startingPsn(), r.responderResources(), r.initiatorDepth(), r.targetAckDelay(),
                    r.failoverAccepted(), r.endToEndFlowControl(), r.rnrRetryCount(), r.srq(), r.localCaGuid(),
                    r.eceOptions(), r.privateData().resize(Rep.PRIVATE_DATA_LIMIT));
            case Rtu r -> new Rtu(r.localCommId(), r.remoteCommId(), r.privateData().resize(Rtu.PRIVATE_DATA_LIMIT));
            case Dreq r -> new Dreq(r.localCommId(), r.remoteCommId(), r.remoteQpnEecn(),
                    r.privateData().resize(Dreq.PRIVATE_DATA_LIMIT));
            case Drep r -> new Drep(r.localCommId(), r.remoteCommId(), r.privateData().resize(Drep.PRIVATE_DATA_LIMIT));
            case SidrReq r -> new SidrReq(r.requestId(), r.partitionKey(), r.serviceId(),
                    r.privateData().resize(SidrReq.PRIVATE_DATA_LIMIT));
            case SidrRep r -> new SidrRep(r.requestId(), r.status(), r.additionalInfo(), r.vendorId(), r.qpn(),
                    r.serviceId(), r.qkey(), r.eceOptions(), r.privateData().resize(SidrRep.PRIVATE_DATA_LIMIT));
        };
    }
}
