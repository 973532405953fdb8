package io.jrdma.tools.perftest;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import io.jrdma.tools.cli.ToolFailure;

/**
 * What {@code -C} needs: the CPU's clock rate, read where perftest's {@code get_cpu_mhz} reads it
 * ({@code /proc/cpuinfo}, the first {@code cpu MHz} line). perftest turns cycle counts into microseconds with
 * this rate; jrdma measures nanoseconds ({@link System#nanoTime()}) and turns them into cycles with it. Also
 * C's {@code %g}, which the sample lists of {@code -H} and {@code -U} print with.
 */
final class CpuClock {

    /** Where the rate is read. */
    static final Path CPUINFO = Path.of("/proc/cpuinfo");

    private CpuClock() {
    }

    /**
     * The CPU's clock rate.
     *
     * @return MHz
     * @throws ToolFailure when the machine does not say
     */
    static double mhz() {
        try {
            return mhz(Files.readAllLines(CPUINFO));
        } catch (IOException e) {
            throw new ToolFailure("-C needs the CPU's clock rate, and " + CPUINFO + " cannot be read: "
                    + e.getMessage(), e);
        }
    }

    /**
     * The first {@code cpu MHz} of a {@code /proc/cpuinfo} text.
     *
     * @param cpuinfo its lines
     * @return MHz
     * @throws ToolFailure when no line gives a positive rate
     */
    static double mhz(List<String> cpuinfo) {
        for (String line : cpuinfo) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals("cpu MHz")) {
                try {
                    double v = Double.parseDouble(line.substring(colon + 1).strip());
                    if (v > 0) {
                        return v;
                    }
                } catch (NumberFormatException e) {
                    // not a number: keep looking
                }
            }
        }
        throw new ToolFailure("-C needs the CPU's clock rate, and " + CPUINFO + " has no 'cpu MHz' line (report in "
                + "usec: leave out -C)");
    }

    /**
     * A number as C's {@code printf("%g")} writes it: six significant digits, no trailing zeros, an exponent
     * below 1e-4 or from 1e6 on.
     *
     * @param v the number
     * @return its text
     */
    static String g(double v) {
        if (v == 0) {
            return "0";
        }
        if (!Double.isFinite(v)) {
            return Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(6));
        int exponent = d.precision() - d.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            BigDecimal mantissa = d.movePointLeft(exponent).stripTrailingZeros();
            return String.format(Locale.ROOT, "%se%s%02d", mantissa.toPlainString(), exponent < 0 ? "-" : "+",
                    Math.abs(exponent));
        }
        return d.stripTrailingZeros().toPlainString();
    }
}
