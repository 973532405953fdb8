package io.jrdma.tools.perf;

import java.io.PrintStream;
import java.util.List;

/**
 * Where a measuring tool sends its report: perftest's text layout, JSON lines, or nothing (for
 * in-process runs whose caller takes the results as objects).
 *
 * <p>Text: {@link #banner} and {@link #line} print as given; {@link #header} prints the dashed
 * rule and a column header; each {@link #row} prints one perftest row; {@link #footer} prints the
 * closing rule. JSON ({@code --json}): banner, free lines, header and footer print nothing, and
 * each row is one JSON object on its own line holding the tool name, the side, the settings and
 * the row's figures, so a script can read stdout line by line.
 */
public final class PerfReporter {

    /** The report forms. */
    public enum Format {
        /** perftest's text layout. */
        TEXT,
        /** One JSON object per result row. */
        JSON,
        /** Nothing. */
        NONE
    }

    private final Format format;
    private final PrintStream out;
    private final String tool;
    private final String role;
    private final JsonObject settings;

    /**
     * Creates a reporter.
     *
     * @param format the form of the report
     * @param out where the report goes (stdout); unused for {@link Format#NONE}
     * @param tool the tool name written into JSON rows, e.g. {@code "tcp-bw"}
     * @param role {@code "client"} or {@code "server"}
     * @param settings the settings written into every JSON row
     */
    public PerfReporter(Format format, PrintStream out, String tool, String role, JsonObject settings) {
        if (format == null || (format != Format.NONE && out == null)) {
            throw new IllegalArgumentException("format and an output stream are required");
        }
        this.format = format;
        this.out = out;
        this.tool = tool;
        this.role = role;
        this.settings = settings == null ? new JsonObject() : settings;
    }

    /**
     * A reporter that prints nothing.
     *
     * @return the reporter
     */
    public static PerfReporter none() {
        return new PerfReporter(Format.NONE, null, "", "", null);
    }

    /**
     * The form of this report.
     *
     * @return the format
     */
    public Format format() {
        return format;
    }

    /**
     * Prints banner lines (text only).
     *
     * @param lines the lines, without newlines
     */
    public void banner(List<String> lines) {
        if (format == Format.TEXT) {
            for (String l : lines) {
                out.println(l);
            }
            out.flush();
        }
    }

    /**
     * Prints one free line (text only).
     *
     * @param line the line, without a newline
     */
    public void line(String line) {
        if (format == Format.TEXT && line != null) {
            out.println(line);
            out.flush();
        }
    }

    /**
     * Prints the dashed rule and a column header (text only).
     *
     * @param header the header, e.g. {@link PerftestFormat#BW_HEADER_MB}
     */
    public void header(String header) {
        if (format == Format.TEXT) {
            out.println(PerftestFormat.RESULT_LINE);
            out.println(header);
            out.flush();
        }
    }

    /**
     * Reports one result row.
     *
     * @param result the row
     */
    public void row(PerfResult result) {
        switch (format) {
            case TEXT -> out.println(PerftestFormat.row(result));
            case JSON -> out.println(json(result));
            case NONE -> {
                return;
            }
            default -> throw new IllegalStateException(format.toString());
        }
        out.flush();
    }

    /**
     * The JSON object of a row as {@link #row} writes it.
     *
     * @param result the row
     * @return the object
     */
    public JsonObject json(PerfResult result) {
        JsonObject o = new JsonObject().put("tool", tool).put("role", role).put("settings", settings);
        result.writeJson(o);
        return o;
    }

    /** Prints the closing dashed rule (text only). */
    public void footer() {
        if (format == Format.TEXT) {
            out.println(PerftestFormat.RESULT_LINE);
            out.flush();
        }
    }
}
