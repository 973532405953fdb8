package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;

/**
 * The MPA v2 "enhanced connection establishment" block (RFC 6581 §5): the first 4 bytes of the private
 * data when the H bit is set in a revision 2 frame. Linux: {@code siw/iwarp.h struct mpa_v2_data},
 * {@code enum mpa_v2_ctrl}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+---------------------------+-+-+---------------------------+
 * |P|S|            IRD            |W|R|            ORD            |
 * +-+-+---------------------------+-+-+---------------------------+
 *  P: peer-to-peer (RTR) mode; S: zero-length SEND as RTR; W: zero-length RDMA Write as RTR;
 *  R: zero-length RDMA Read as RTR. IRD/ORD: 14 bits each.
 * </pre>
 * siw sends IRD/ORD from the rdma_cm responder resources / initiator depth, caps what it receives at
 * 128, never sets P as initiator, and as responder to a P request answers W if offered, else R, else W
 * (golden {@code mpa-v2-pdata}).
 *
 * @param ird inbound RDMA Read queue depth, 0 to {@value #MASK_IRD_ORD}
 * @param ord outbound RDMA Read queue depth, 0 to {@value #MASK_IRD_ORD}
 * @param peerToPeer the P bit
 * @param zeroLengthSendRtr the S bit
 * @param zeroLengthWriteRtr the W bit
 * @param zeroLengthReadRtr the R bit
 */
public record MpaV2Ctrl(int ird, int ord, boolean peerToPeer, boolean zeroLengthSendRtr,
        boolean zeroLengthWriteRtr, boolean zeroLengthReadRtr) {
    /** Bytes of the block. */
    public static final int LENGTH = 4;
    /** IRD and ORD are 14-bit fields (siw {@code MPA_IRD_ORD_MASK}). */
    public static final int MASK_IRD_ORD = 0x3FFF;
    /** P bit in the IRD word. */
    public static final int FLAG_PEER_TO_PEER = 0x8000;
    /** S bit in the IRD word. */
    public static final int FLAG_ZERO_LENGTH_SEND_RTR = 0x4000;
    /** W bit in the ORD word. */
    public static final int FLAG_ZERO_LENGTH_WRITE_RTR = 0x8000;
    /** R bit in the ORD word. */
    public static final int FLAG_ZERO_LENGTH_READ_RTR = 0x4000;

    /**
     * Checks the 14-bit limits.
     *
     * @throws IllegalArgumentException if IRD or ORD is outside 0 to 16383
     */
    public MpaV2Ctrl {
        if (ird < 0 || ird > MASK_IRD_ORD || ord < 0 || ord > MASK_IRD_ORD) {
            throw new IllegalArgumentException("MPA v2 IRD/ORD must be 0.." + MASK_IRD_ORD + ": ird=" + ird
                    + " ord=" + ord);
        }
    }

    /**
     * A block without RTR negotiation, as siw's initiator sends it.
     *
     * @param ird inbound RDMA Read queue depth
     * @param ord outbound RDMA Read queue depth
     * @return the block
     */
    public static MpaV2Ctrl of(int ird, int ord) {
        return new MpaV2Ctrl(ird, ord, false, false, false, false);
    }

    /** {@return the IRD word as sent: P, S and the 14-bit IRD} */
    public int irdWord() {
        return (peerToPeer ? FLAG_PEER_TO_PEER : 0) | (zeroLengthSendRtr ? FLAG_ZERO_LENGTH_SEND_RTR : 0) | ird;
    }

    /** {@return the ORD word as sent: W, R and the 14-bit ORD} */
    public int ordWord() {
        return (zeroLengthWriteRtr ? FLAG_ZERO_LENGTH_WRITE_RTR : 0)
                | (zeroLengthReadRtr ? FLAG_ZERO_LENGTH_READ_RTR : 0) | ord;
    }

    /**
     * Decodes the two words; never throws (the fields are masked to 14 bits).
     *
     * @param irdWord the first 16-bit word
     * @param ordWord the second 16-bit word
     * @return the block
     */
    public static MpaV2Ctrl fromWords(int irdWord, int ordWord) {
        return new MpaV2Ctrl(irdWord & MASK_IRD_ORD, ordWord & MASK_IRD_ORD, (irdWord & FLAG_PEER_TO_PEER) != 0,
                (irdWord & FLAG_ZERO_LENGTH_SEND_RTR) != 0, (ordWord & FLAG_ZERO_LENGTH_WRITE_RTR) != 0,
                (ordWord & FLAG_ZERO_LENGTH_READ_RTR) != 0);
    }

    /**
     * Reads the block.
     *
     * @param segment the buffer
     * @param offset offset of the block
     * @return the block
     */
    public static MpaV2Ctrl read(MemorySegment segment, long offset) {
        return fromWords(Short.toUnsignedInt(segment.get(Wire.U16, offset)),
                Short.toUnsignedInt(segment.get(Wire.U16, offset + 2)));
    }

    /**
     * Writes the block.
     *
     * @param segment the buffer
     * @param offset offset of the block
     */
    public void write(MemorySegment segment, long offset) {
        segment.set(Wire.U16, offset, (short) irdWord());
        segment.set(Wire.U16, offset + 2, (short) ordWord());
    }
}
