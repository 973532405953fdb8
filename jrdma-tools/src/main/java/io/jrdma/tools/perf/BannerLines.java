package io.jrdma.tools.perf;

/**
 * Line shapes of perftest's settings banner, for tools that print a banner of their own fields
 * (the TCP/UDP baselines) in the same layout as {@link TestInfo}: a title indented by 20 spaces,
 * {@code " Label           : value"} with the label padded to 16, and the first rows in pairs
 * separated by two tabs.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.c}, {@code ctx_print_test_info}.
 */
public final class BannerLines {

    /** Width of a left-hand label ({@code "Dual-port       "}). */
    public static final int LABEL_WIDTH = 16;

    /** Width of a right-hand label in a pair row ({@code "Device         "}). */
    public static final int PAIR_LABEL_WIDTH = 15;

    /** Indentation of the title line. */
    public static final String TITLE_INDENT = " ".repeat(20);

    private BannerLines() {
    }

    /**
     * The title line, e.g. {@code "                    RDMA_Write BW Test"}.
     *
     * @param title the title
     * @return the line
     */
    public static String title(String title) {
        return TITLE_INDENT + title;
    }

    /**
     * A single field row, e.g. {@code " TX depth        : 128"}.
     *
     * @param label the label, at most 16 characters to keep the column
     * @param value the value
     * @return the line
     */
    public static String field(String label, Object value) {
        return ' ' + PerftestFormat.left(label, LABEL_WIDTH) + ": " + value;
    }

    /**
     * A pair row, e.g. {@code " Dual-port       : OFF\t\tDevice         : siw0"}.
     *
     * @param label a left label
     * @param value a left value
     * @param label2 a right label
     * @param value2 a right value
     * @return the line
     */
    public static String pair(String label, Object value, String label2, Object value2) {
        return field(label, value) + "\t\t" + PerftestFormat.left(label2, PAIR_LABEL_WIDTH) + ": " + value2;
    }

    /**
     * perftest's spelling of a switch.
     *
     * @param on the switch
     * @return {@code "ON"} or {@code "OFF"}
     */
    public static String onOff(boolean on) {
        return on ? "ON" : "OFF";
    }
}
