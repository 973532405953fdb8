package io.jrdma.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The --json writer. */
class JsonObjectTest {

    @Test
    void writesFieldsInOrderWithEscapesAndNullForNonFiniteNumbers() {
        JsonObject o = new JsonObject().put("s", "a\"b\\c\n\u0001").put("n", 42).put("d", 1.5).put("nan", Double.NaN)
                .put("b", true).put("none", (String) null).put("arr", new long[] {1, 2})
                .put("o", new JsonObject().put("x", 1));
        assertThat(o).hasToString("{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":42,\"d\":1.5,\"nan\":null,\"b\":true,"
                + "\"none\":null,\"arr\":[1,2],\"o\":{\"x\":1}}");
    }

    @Test
    void aRowCarriesToolRoleSettingsAndFigures() {
        PerfReporter r = new PerfReporter(PerfReporter.Format.JSON, System.out, "tcp-bw", "client",
                new JsonObject().put("io_mode", "busy-poll"));
        String json = r.json(new BwResult(4096, 100, 2.0, 1.0, 0.5, ReportUnit.GBIT_PER_SEC)).toString();
        assertThat(json).startsWith("{\"tool\":\"tcp-bw\",\"role\":\"client\",\"settings\":{\"io_mode\":\"busy-poll\"}")
                .contains("\"bytes\":4096", "\"iterations\":100", "\"bw_peak\":2.0", "\"bw_average\":1.0",
                        "\"bw_unit\":\"Gb/sec\"", "\"msg_rate_mpps\":0.5");
    }
}
