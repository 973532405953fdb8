package io.jrdma.tools.perf;

/**
 * The {@code local address:} / {@code remote address:} lines perftest prints for each QP after
 * the banner, with the GID line below.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_communication.c},
 * {@code ctx_print_pingpong_data}, and the {@code BASIC_ADDR_FMT}, {@code READ_FMT},
 * {@code RDMA_FMT} and {@code PERF_GID_FMT} layouts of {@code perftest_communication.h}. Real
 * output (under {@code src/test/resources/perftest/}) shows which parts appear: with the Ethernet
 * (socket) exchange, READ lines carry {@code OUT} and {@code RKey}/{@code VAddr}, WRITE lines
 * {@code RKey}/{@code VAddr}, SEND lines neither; with {@code -R} (rdma_cm) none of them do. The
 * GID is printed as 16 decimal bytes, as perftest does.
 *
 * @param lid the LID (0 on Ethernet link layers)
 * @param qpn the QP number
 * @param psn the starting packet sequence number
 * @param rkey the remote key of the buffer
 * @param vaddr the virtual address of the buffer
 * @param outReads the outstanding RDMA READs allowed
 * @param gid the 16-byte GID, or null to print no GID line
 */
public record PeerAddress(int lid, int qpn, int psn, int rkey, long vaddr, int outReads, byte[] gid) {

    /** Length of a GID. */
    public static final int GID_LENGTH = 16;

    /**
     * Checks the GID length and copies it.
     *
     * @throws IllegalArgumentException if the GID is not 16 bytes
     */
    public PeerAddress {
        if (gid != null) {
            if (gid.length != GID_LENGTH) {
                throw new IllegalArgumentException("a GID has 16 bytes, got " + gid.length);
            }
            gid = gid.clone();
        }
    }

    /**
     * The GID.
     *
     * @return a copy of the 16 bytes, or null
     */
    @Override
    public byte[] gid() {
        return gid == null ? null : gid.clone();
    }

    /**
     * The address line.
     *
     * @param side {@code "local"} or {@code "remote"}
     * @param withOutReads append {@code OUT} (READ over the Ethernet exchange)
     * @param withRkey append {@code RKey} and {@code VAddr} (READ and WRITE over the Ethernet exchange)
     * @return the line, without a newline
     */
    public String addressLine(String side, boolean withOutReads, boolean withRkey) {
        StringBuilder sb = new StringBuilder(96);
        sb.append(' ').append(side).append(" address: LID ").append(PerftestFormat.altHex(lid, 4))
                .append(" QPN ").append(PerftestFormat.altHex(Integer.toUnsignedLong(qpn), 6))
                .append(" PSN ").append(PerftestFormat.altHex(Integer.toUnsignedLong(psn), 6));
        if (withOutReads) {
            sb.append(" OUT ").append(PerftestFormat.altHex(outReads, 4));
        }
        if (withRkey) {
            sb.append(" RKey ").append(PerftestFormat.altHex(Integer.toUnsignedLong(rkey), 8))
                    .append(" VAddr ").append(PerftestFormat.altHex(vaddr, 16));
        }
        return sb.toString();
    }

    /**
     * The GID line, {@code " GID: 00:00:...:255:255:10:00:02:15"}.
     *
     * @return the line without a newline, or null when there is no GID
     */
    public String gidLine() {
        if (gid == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder(" GID: ");
        for (int i = 0; i < GID_LENGTH; i++) {
            if (i > 0) {
                sb.append(':');
            }
            int b = gid[i] & 0xff;
            if (b < 10) {
                sb.append('0');
            }
            sb.append(b);
        }
        return sb.toString();
    }
}
