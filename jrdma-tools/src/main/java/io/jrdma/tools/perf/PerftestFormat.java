package io.jrdma.tools.perf;

import java.util.Locale;

/**
 * The text layout of perftest 4.5's reports, reproduced column for column so jrdma's tables line
 * up with Linux {@code ib_*_bw} / {@code ib_*_lat} output: the dashed rule, the column headers and
 * the rows, including perftest's tabs and trailing spaces.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.h} (the {@code RESULT_*} and
 * {@code REPORT_*} layouts) and {@code src/perftest_parameters.c} ({@code print_full_bw_report},
 * {@code print_report_lat}, {@code print_report_lat_duration}); checked against real output of
 * perftest 4.5 on Linux 6.1 siw and rxe kept under {@code src/test/resources/perftest/}.
 * Numbers are written with {@link Locale#ROOT}; non-finite numbers as glibc prints them
 * ({@code inf}, {@code -nan}).
 */
public final class PerftestFormat {

    /** The dashed rule perftest prints around every block (87 dashes). */
    public static final String RESULT_LINE = "-".repeat(87);

    /** Column header of bandwidth tests in MB/sec. */
    public static final String BW_HEADER_MB =
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";

    /** Column header of bandwidth tests with {@code --report_gbits}. */
    public static final String BW_HEADER_GBITS =
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";

    /** Column header of latency tests run for a number of iterations (note the trailing space). */
    public static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
            + "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";

    /** Column header of latency tests run for a duration ({@code -D}). */
    public static final String LAT_DURATION_HEADER = " #bytes        #iterations       t_avg[usec]    tps average";

    /** The block a perftest server prints before it waits for its client. */
    public static final String WAITING_FOR_CLIENT = "\n"
            + "************************************\n"
            + "* Waiting for client to connect... *\n"
            + "************************************";

    /**
     * Below this average (in Gb/sec) perftest switches a {@code --report_gbits} row to six
     * decimals ({@code inc_accuracy} in {@code print_full_bw_report}).
     */
    public static final double GBITS_EXTRA_PRECISION_BELOW = 0.1;

    private PerftestFormat() {
    }

    /**
     * The bandwidth column header for a unit.
     *
     * @param unit the bandwidth unit
     * @return the header line, without a newline
     */
    public static String bwHeader(ReportUnit unit) {
        return unit == ReportUnit.GBIT_PER_SEC ? BW_HEADER_GBITS : BW_HEADER_MB;
    }

    /**
     * The header line for a result kind.
     *
     * @param result a row of the kind to head
     * @return the header line, without a newline
     */
    public static String header(PerfResult result) {
        return switch (result) {
            case BwResult bw -> bwHeader(bw.unit());
            case LatResult lat -> LAT_HEADER;
            case LatDurationResult dur -> LAT_DURATION_HEADER;
        };
    }

    /**
     * Formats one result row.
     *
     * @param result the row
     * @return the row, without a newline
     */
    public static String row(PerfResult result) {
        return switch (result) {
            case BwResult bw -> bwRow(bw);
            case LatResult lat -> latRow(lat);
            case LatDurationResult dur -> latDurationRow(dur);
        };
    }

    /**
     * Formats a bandwidth row as {@code print_full_bw_report} does: two decimals, or six when a
     * Gb/sec average is below 0.1.
     *
     * @param r the row
     * @return the row, without a newline
     */
    public static String bwRow(BwResult r) {
        boolean extraPrecision = r.unit() == ReportUnit.GBIT_PER_SEC && r.bwAverage() < GBITS_EXTRA_PRECISION_BELOW;
        StringBuilder sb = new StringBuilder(96);
        sb.append(' ').append(left(Long.toString(r.bytes()), 7)).append("    ");
        if (extraPrecision) {
            sb.append(r.iterations()).append("           ")
                    .append(left(fixed(r.bwPeak(), 6), 7)).append("            ")
                    .append(left(fixed(r.bwAverage(), 6), 7)).append("            ")
                    .append(left(fixed(r.msgRateMpps(), 6), 7));
        } else {
            sb.append(left(Long.toString(r.iterations()), 10)).append("       ")
                    .append(left(fixed(r.bwPeak(), 2), 7)).append("            ")
                    .append(left(fixed(r.bwAverage(), 2), 7)).append("\t\t   ")
                    .append(left(fixed(r.msgRateMpps(), 6), 7));
        }
        return sb.toString();
    }

    /**
     * Formats a latency row as {@code print_report_lat} does.
     *
     * @param r the row
     * @return the row, without a newline
     */
    public static String latRow(LatResult r) {
        return ' ' + left(Long.toString(r.bytes()), 7) + ' ' + r.iterations() + "          "
                + left(fixed(r.tMin(), 2), 7) + "        "
                + left(fixed(r.tMax(), 2), 7) + "      "
                + left(fixed(r.tTypical(), 2), 7) + "  \t       "
                + left(fixed(r.tAvg(), 2), 7) + "     \t"
                + left(fixed(r.tStdev(), 2), 7) + "\t\t"
                + left(fixed(r.p99(), 2), 7) + " \t\t"
                + left(fixed(r.p999(), 2), 7);
    }

    /**
     * Formats the row of a latency test run for a duration, as {@code print_report_lat_duration}.
     *
     * @param r the row
     * @return the row, without a newline
     */
    public static String latDurationRow(LatDurationResult r) {
        return ' ' + left(Long.toString(r.bytes()), 7) + "       " + r.iterations() + "            "
                + left(fixed(r.tAvg(), 2), 7) + "        " + left(fixed(r.tpsAverage(), 2), 7);
    }

    /**
     * C's {@code %.Nf}: fixed point with {@code decimals} digits; glibc's {@code inf}/{@code -nan}
     * for non-finite values.
     *
     * @param value the number
     * @param decimals digits after the point
     * @return the text
     */
    public static String fixed(double value, int decimals) {
        if (Double.isNaN(value)) {
            return "-nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /**
     * C's {@code %-Ns}: left-justify in a field of {@code width}, never truncating.
     *
     * @param s the text
     * @param width the minimum width
     * @return the padded text
     */
    public static String left(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    /**
     * C's {@code %#0Nx}: lower-case hex with a {@code 0x} prefix for non-zero values, zero-padded
     * to {@code width} characters including the prefix; zero prints as {@code width} zeros.
     *
     * @param value the number, read as unsigned
     * @param width the minimum width
     * @return the text
     */
    public static String altHex(long value, int width) {
        String digits = Long.toHexString(value);
        if (value == 0) {
            return "0".repeat(Math.max(width, 1));
        }
        int pad = width - 2 - digits.length();
        return pad > 0 ? "0x" + "0".repeat(pad) + digits : "0x" + digits;
    }
}
