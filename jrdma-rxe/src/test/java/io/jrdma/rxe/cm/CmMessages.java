package io.jrdma.rxe.cm;

import io.jrdma.internal.cm.ib.CmMessage;
import io.jrdma.internal.cm.ib.CmPath;
import io.jrdma.internal.cm.ib.Dreq;
import io.jrdma.internal.cm.ib.Drep;
import io.jrdma.internal.cm.ib.Mra;
import io.jrdma.internal.cm.ib.Octets;
import io.jrdma.internal.cm.ib.Rej;
import io.jrdma.internal.cm.ib.Rep;
import io.jrdma.internal.cm.ib.Req;
import io.jrdma.internal.cm.ib.Rtu;
import io.jrdma.internal.cm.ib.SidrRep;
import io.jrdma.internal.cm.ib.SidrReq;
import io.jrdma.verbs.Gid;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** jqwik generators of arbitrary, valid CM records: every field anywhere within its width. */
final class CmMessages {
    private CmMessages() {
    }

    static Arbitrary<Integer> bits(int width) {
        return width == 32 ? Arbitraries.integers() : Arbitraries.integers().between(0, (1 << width) - 1);
    }

    static Arbitrary<Octets> upTo(int limit) {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(limit).map(Octets::of);
    }

    static Arbitrary<Gid> gids() {
        return Arbitraries.bytes().array(byte[].class).ofSize(16).map(Gid::new);
    }

    static Arbitrary<CmPath> paths() {
        return Combinators.combine(bits(16), bits(16), gids(), gids(), bits(20), bits(6), bits(8), bits(8))
                .as((a, b, c, d, e, f, g, h) -> new Object[] {a, b, c, d, e, f, g, h})
                .flatMap(o -> Combinators.combine(bits(4), Arbitraries.of(true, false), bits(5)).as((sl, sub, ack) ->
                        new CmPath((Integer) o[0], (Integer) o[1], (Gid) o[2], (Gid) o[3], (Integer) o[4],
                                (Integer) o[5], (Integer) o[6], (Integer) o[7], sl, sub, ack)));
    }

    static Arbitrary<Req> reqs() {
        Arbitrary<int[]> ints = Arbitraries.integers().array(int[].class).ofSize(20);
        Arbitrary<boolean[]> flags = Arbitraries.of(true, false).array(boolean[].class).ofSize(5);
        return Combinators.combine(ints, flags, Arbitraries.longs(), Arbitraries.longs(), paths(), paths(),
                upTo(Req.PRIVATE_DATA_LIMIT)).as((i, f, sid, guid, p1, p2, pd) -> new Req(i[0], i[1] & 0xffffff, sid,
                        guid, i[2], i[3] & 0xffffff, i[4] & 0xff, i[5] & 0xffffff, i[6] & 0xff, i[7] & 0xffffff,
                        i[8] & 0x1f, i[9] & 0x3, f[0], i[10] & 0xffffff, i[11] & 0x1f, i[12] & 0x7, i[13] & 0xffff,
                        i[14] & 0xf, f[1], i[15] & 0x7, i[16] & 0xf, f[2], i[17] & 0x7, p1, p2, f[3], i[18], pd));
    }

    static Arbitrary<Rep> reps() {
        Arbitrary<int[]> ints = Arbitraries.integers().array(int[].class).ofSize(13);
        Arbitrary<boolean[]> flags = Arbitraries.of(true, false).array(boolean[].class).ofSize(2);
        return Combinators.combine(ints, flags, Arbitraries.longs(), upTo(Rep.PRIVATE_DATA_LIMIT))
                .as((i, f, guid, pd) -> new Rep(i[0], i[1], i[2], i[3] & 0xffffff, i[4] & 0xffffff,
                        i[5] & 0xffffff, i[6] & 0xffffff,
                        i[7] & 0xff, i[8] & 0xff, i[9] & 0x1f, i[10] & 0x3, f[0], i[11] & 0x7, f[1], guid, i[12], pd));
    }

    static Arbitrary<CmMessage> all() {
        Arbitrary<Mra> mra = Combinators.combine(bits(32), bits(32), bits(2), bits(5), upTo(Mra.PRIVATE_DATA_LIMIT))
                .as(Mra::new);
        Arbitrary<Rej> rej = Combinators.combine(bits(32), bits(32), bits(2), bits(16), upTo(Rej.ARI_LIMIT),
                upTo(Rej.PRIVATE_DATA_LIMIT)).as(Rej::new);
        Arbitrary<Rtu> rtu = Combinators.combine(bits(32), bits(32), upTo(Rtu.PRIVATE_DATA_LIMIT)).as(Rtu::new);
        Arbitrary<Dreq> dreq = Combinators.combine(bits(32), bits(32), bits(24), upTo(Dreq.PRIVATE_DATA_LIMIT))
                .as(Dreq::new);
        Arbitrary<Drep> drep = Combinators.combine(bits(32), bits(32), upTo(Drep.PRIVATE_DATA_LIMIT)).as(Drep::new);
        Arbitrary<SidrReq> sidrReq = Combinators.combine(bits(32), bits(16), Arbitraries.longs(),
                upTo(SidrReq.PRIVATE_DATA_LIMIT)).as(SidrReq::new);
        Arbitrary<SidrRep> sidrRep = Combinators.combine(bits(32), bits(8), upTo(SidrRep.ADDITIONAL_INFO_LIMIT),
                bits(24), bits(24), Arbitraries.longs(), bits(32), bits(32)).as((a, b, c, d, e, f, g, h) ->
                        new Object[] {a, b, c, d, e, f, g, h})
                .flatMap(o -> upTo(SidrRep.PRIVATE_DATA_LIMIT).map(pd -> new SidrRep((Integer) o[0], (Integer) o[1],
                        (Octets) o[2], (Integer) o[3], (Integer) o[4], (Long) o[5], (Integer) o[6], (Integer) o[7],
                        pd)));
        return Arbitraries.oneOf(reqs(), mra, rej, reps(), rtu, dreq, drep, sidrReq, sidrRep);
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
