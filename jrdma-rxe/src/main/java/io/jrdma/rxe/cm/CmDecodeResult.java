package io.jrdma.rxe.cm;

/**
 * What {@link CmMadCodec} makes of bytes received from the wire: a MAD, or the reason it is not one.
 * Decoding never throws for wire input.
 */
public sealed interface CmDecodeResult permits CmDecodeResult.Decoded, CmDecodeResult.Malformed {

    /** Why bytes are not a CM MAD (or a QP1 datagram carrying one). */
    enum Error {
        /** Fewer bytes than a MAD (256) or a QP1 datagram (280). */
        TRUNCATED,
        /** A QP1 datagram longer than one MAD plus pad and ICRC. */
        BAD_LENGTH,
        /** The BTH opcode is not UD SEND Only. */
        BAD_OPCODE,
        /** The BTH destination QP is not 1. */
        NOT_QP1,
        /** The DETH Q_Key is not 0x80010000. */
        BAD_QKEY,
        /** MAD base version other than 1. */
        BAD_BASE_VERSION,
        /** Management class other than CM (0x07). */
        NOT_CM_CLASS,
        /** CM class version other than 2 (ib_cm would reject with "invalid class version"). */
        BAD_CLASS_VERSION,
        /** Method other than Send (0x03). */
        BAD_METHOD,
        /** An attribute id that is no CM message, or LAP/APR, which this codec does not handle. */
        UNKNOWN_ATTRIBUTE,
        /** A length field inside the message exceeds its area (ARI, SIDR additional information). */
        BAD_FIELD
    }

    /**
     * A decoded MAD.
     *
     * @param mad the MAD
     */
    record Decoded(CmMad mad) implements CmDecodeResult {
    }

    /**
     * Not a (supported) CM MAD.
     *
     * @param error the reason
     * @param detail a human-readable explanation with the offending value
     */
    record Malformed(Error error, String detail) implements CmDecodeResult {
    }
}
