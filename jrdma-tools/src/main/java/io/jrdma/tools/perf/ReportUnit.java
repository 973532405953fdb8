package io.jrdma.tools.perf;

/**
 * The bandwidth unit of a report: perftest prints MB/sec (MB = 2<sup>20</sup> bytes) unless
 * {@code --report_gbits} asks for Gb/sec (10<sup>9</sup> bits).
 *
 * <p>Modelled on perftest 4.5 {@code src/perftest_parameters.c}, {@code print_report_bw}
 * ({@code format_factor} 0x100000 or 125000000).
 */
public enum ReportUnit {
    /** MB/sec with MB = 2<sup>20</sup> bytes, perftest's default. */
    MB_PER_SEC("MB/sec", 0x100000),
    /** Gb/sec with Gb = 10<sup>9</sup> bits, perftest's {@code --report_gbits}. */
    GBIT_PER_SEC("Gb/sec", 125_000_000);

    private final String label;
    private final long bytesPerUnit;

    ReportUnit(String label, long bytesPerUnit) {
        this.label = label;
        this.bytesPerUnit = bytesPerUnit;
    }

    /**
     * The unit as perftest writes it in the column header.
     *
     * @return {@code "MB/sec"} or {@code "Gb/sec"}
     */
    public String label() {
        return label;
    }

    /**
     * Bytes per second that make one unit per second.
     *
     * @return 1,048,576 for MB/sec, 125,000,000 for Gb/sec
     */
    public long bytesPerUnit() {
        return bytesPerUnit;
    }

    /**
     * Converts a byte rate to this unit.
     *
     * @param bytesPerSecond a rate in bytes per second
     * @return the same rate in this unit
     */
    public double fromBytesPerSecond(double bytesPerSecond) {
        return bytesPerSecond / bytesPerUnit;
    }
}
