package io.jrdma.siw.wire;

/**
 * Layer field of the TERMINATE control word (RFC 5040 §4.8): which layer detected the error.
 * Linux: {@code siw/iwarp.h enum term_elayer}.
 */
public enum TermLayer {
    /** 0x0: RDMAP. */
    RDMAP(0),
    /** 0x1: DDP. */
    DDP(1),
    /** 0x2: the lower layer protocol, MPA over TCP (RFC 5044 §8). */
    LLP(2);

    private static final TermLayer[] BY_VALUE = values();

    private final int value;

    TermLayer(int value) {
        this.value = value;
    }

    /**
     * The layer with this 4-bit value, without throwing.
     *
     * @param value the layer field
     * @return the layer, or {@code null} for 3 to 15
     */
    public static TermLayer of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }

    /** {@return the 4-bit value on the wire} */
    public int value() {
        return value;
    }

    /**
     * Whether an error type is defined for this layer: RDMAP 0 to 2 (local catastrophic, remote
     * protection, remote operation), DDP 0 to 2 (catastrophic, tagged buffer, untagged buffer; 3 is
     * reserved for the LLP), LLP 0 (MPA).
     *
     * @param etype the 4-bit error type
     * @return true if defined
     */
    public boolean definesEtype(int etype) {
        return switch (this) {
            case RDMAP, DDP -> etype >= 0 && etype <= 2;
            case LLP -> etype == 0;
        };
    }
}
