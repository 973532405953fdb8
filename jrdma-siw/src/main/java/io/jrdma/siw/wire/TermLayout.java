package io.jrdma.siw.wire;

/**
 * Bit layouts of the 32-bit TERMINATE control word found on the wire.
 *
 * <pre>
 * RFC_5040 (RFC 5040 §4.8), as bytes 0..3:
 *   byte 0: Layer (high nibble) | EType (low nibble)
 *   byte 1: Error Code
 *   byte 2: M (0x80) D (0x40) R (0x20), 5 reserved bits
 *   byte 3: reserved
 * SIW_LITTLE_ENDIAN (Linux siw on x86-64/arm64: struct iwarp_terminate's __LITTLE_ENDIAN_BITFIELD
 * branch declares layer:4, etype:4, ecode:8, flag_m, flag_d, flag_r, reserved:13; GCC fills a
 * little-endian unit from its least significant bit):
 *   byte 0: EType (high nibble) | Layer (low nibble)
 *   byte 1: Error Code
 *   byte 2: 5 reserved bits, R (0x04) D (0x02) M (0x01)
 *   byte 3: reserved
 * </pre>
 * Verified against Linux 6.1 siw (golden README): every TERMINATE siw sent used
 * {@link #SIW_LITTLE_ENDIAN}, e.g. {@code 21 03 03 00} for DDP / untagged / invalid MSN range with M and
 * D; and siw parses what it receives with the same bitfields: an RFC-layout word {@code 12 03 c0 00}
 * was logged as "layer 2, type 1, code 3" with its copied header ignored (M read as 0), while
 * {@code 21 03 03 00} was logged as "layer 1, type 2, code 3" and its DDP header reported.
 * The error code byte is the same in both layouts. A big-endian siw host would use a third layout,
 * which jrdma neither sends nor detects.
 */
public enum TermLayout {
    /** The layout of RFC 5040 §4.8 (hardware RNICs, Wireshark). */
    RFC_5040(28, 24, 0x8000, 0x4000, 0x2000, 0x1FFF),
    /** What Linux siw sends and parses on little-endian hosts; jrdma's default for sending. */
    SIW_LITTLE_ENDIAN(24, 28, 0x0100, 0x0200, 0x0400, 0xF8FF);

    /** Shift of the error code, the same in both layouts. */
    public static final int SHIFT_ECODE = 16;
    /** Error code bits, the same in both layouts. */
    public static final int MASK_ECODE = 0x00FF0000;
    /**
     * Bits reserved in both layouts (byte 3, and 0x18 of byte 2). RFC 5040 §4.8: reserved bits are "ignored
     * on receive", so they cannot tell the layouts apart; only the bits one layout uses as flags can.
     */
    public static final int MASK_RESERVED_BOTH = 0x18FF;

    private final int layerShift;
    private final int etypeShift;
    private final int flagM;
    private final int flagD;
    private final int flagR;
    private final int maskReserved;

    TermLayout(int layerShift, int etypeShift, int flagM, int flagD, int flagR, int maskReserved) {
        this.layerShift = layerShift;
        this.etypeShift = etypeShift;
        this.flagM = flagM;
        this.flagD = flagD;
        this.flagR = flagR;
        this.maskReserved = maskReserved;
    }

    /**
     * Builds a control word.
     *
     * @param layer layer value, 0 to 15
     * @param etype error type, 0 to 15
     * @param ecode error code, 0 to 255
     * @param m DDP segment length valid
     * @param d DDP header included
     * @param r RDMAP header included
     * @return the 32-bit word, to be written big-endian
     */
    public int encode(int layer, int etype, int ecode, boolean m, boolean d, boolean r) {
        return (layer & 0xF) << layerShift | (etype & 0xF) << etypeShift | (ecode & 0xFF) << SHIFT_ECODE
                | (m ? flagM : 0) | (d ? flagD : 0) | (r ? flagR : 0);
    }

    /**
     * {@return the layer value, 0 to 15}
     *
     * @param word the control word as read big-endian
     */
    public int layer(int word) {
        return word >>> layerShift & 0xF;
    }

    /**
     * {@return the error type, 0 to 15}
     *
     * @param word the control word as read big-endian
     */
    public int etype(int word) {
        return word >>> etypeShift & 0xF;
    }

    /**
     * {@return the error code, 0 to 255 (the same in both layouts)}
     *
     * @param word the control word as read big-endian
     */
    public int ecode(int word) {
        return (word & MASK_ECODE) >>> SHIFT_ECODE;
    }

    /**
     * {@return the M flag: DDP segment length valid}
     *
     * @param word the control word as read big-endian
     */
    public boolean m(int word) {
        return (word & flagM) != 0;
    }

    /**
     * {@return the D flag: DDP header included}
     *
     * @param word the control word as read big-endian
     */
    public boolean d(int word) {
        return (word & flagD) != 0;
    }

    /**
     * {@return the R flag: RDMAP header included}
     *
     * @param word the control word as read big-endian
     */
    public boolean r(int word) {
        return (word & flagR) != 0;
    }

    /**
     * {@return true when this layout's reserved bits are all zero}
     *
     * @param word the control word as read big-endian
     */
    public boolean reservedClear(int word) {
        return (word & maskReserved) == 0;
    }

    /**
     * {@return true when no bit this layout reserves and the other uses is set, and the layer and error
     * type are defined} Bits reserved in both layouts ({@link #MASK_RESERVED_BOTH}) are ignored, as RFC
     * 5040 asks, so they cannot make a word read as another error (found by TerminateFuzzTest).
     *
     * @param word the control word as read big-endian
     */
    public boolean plausible(int word) {
        TermLayer layer = TermLayer.of(layer(word));
        return (word & maskReserved & ~MASK_RESERVED_BOTH) == 0 && layer != null && layer.definesEtype(etype(word));
    }

    /**
     * {@return true when the word names a {@link TermError} under this layout}
     *
     * @param word the control word as read big-endian
     */
    public boolean named(int word) {
        TermLayer layer = TermLayer.of(layer(word));
        return layer != null && TermError.of(layer, etype(word), ecode(word)) != null;
    }

    /**
     * Decides which layout a received control word uses.
     * <ol>
     *   <li>The flags sit in disjoint bits of byte 2 (each in the other layout's reserved bits), so a word
     *       with a flag set tells by itself; so does a word whose layer and error type are defined in one
     *       layout only.</li>
     *   <li>Otherwise, a word that names a {@link TermError} in one layout only: siw's {@code 02 02 00 00}
     *       is LLP / MPA / CRC error, while RDMAP / remote operation / 0x02 is not defined.</li>
     *   <li>Otherwise {@code fallback}: e.g. {@code 20 06 00 00} is RDMAP unexpected opcode (siw) or
     *       MPA insufficient IRD (RFC), and {@code 00}, {@code 11}, {@code 22} read the same both ways.</li>
     * </ol>
     *
     * @param word the control word as read big-endian
     * @param fallback the layout to assume when the word does not tell; {@link #SIW_LITTLE_ENDIAN} for a
     *        Linux siw peer
     * @return the layout to decode {@code word} with
     */
    public static TermLayout detect(int word, TermLayout fallback) {
        boolean rfc = RFC_5040.plausible(word);
        boolean siw = SIW_LITTLE_ENDIAN.plausible(word);
        if (rfc != siw) {
            return rfc ? RFC_5040 : SIW_LITTLE_ENDIAN;
        }
        if (rfc) {
            boolean rfcNamed = RFC_5040.named(word);
            if (rfcNamed != SIW_LITTLE_ENDIAN.named(word)) {
                return rfcNamed ? RFC_5040 : SIW_LITTLE_ENDIAN;
            }
        }
        return fallback;
    }
}
