package io.jrdma.tools.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * A small JSON object writer for the tools' {@code --json} output: fields keep their insertion
 * order, strings are escaped, non-finite numbers become {@code null}, nested objects are allowed.
 * Not thread-safe; the tools build one object per result row on the control path.
 */
public final class JsonObject {

    private final List<String> names = new ArrayList<>();
    private final List<Object> values = new ArrayList<>();

    /** Creates an empty object. */
    public JsonObject() {
    }

    /**
     * Adds a string field.
     *
     * @param name the field name
     * @param value the value; {@code null} writes JSON null
     * @return this object
     */
    public JsonObject put(String name, String value) {
        return add(name, value);
    }

    /**
     * Adds an integer field.
     *
     * @param name the field name
     * @param value the value
     * @return this object
     */
    public JsonObject put(String name, long value) {
        return add(name, value);
    }

    /**
     * Adds a number field; NaN and infinities are written as {@code null}.
     *
     * @param name the field name
     * @param value the value
     * @return this object
     */
    public JsonObject put(String name, double value) {
        return add(name, value);
    }

    /**
     * Adds a boolean field.
     *
     * @param name the field name
     * @param value the value
     * @return this object
     */
    public JsonObject put(String name, boolean value) {
        return add(name, value);
    }

    /**
     * Adds a nested object.
     *
     * @param name the field name
     * @param value the nested object
     * @return this object
     */
    public JsonObject put(String name, JsonObject value) {
        return add(name, value);
    }

    /**
     * Adds an array of integers.
     *
     * @param name the field name
     * @param value the values
     * @return this object
     */
    public JsonObject put(String name, long[] value) {
        return add(name, value.clone());
    }

    /**
     * Adds an array of objects.
     *
     * @param name the field name
     * @param value the objects
     * @return this object
     */
    public JsonObject put(String name, java.util.List<JsonObject> value) {
        return add(name, java.util.List.copyOf(value));
    }

    private JsonObject add(String name, Object value) {
        if (name == null) {
            throw new IllegalArgumentException("name is required");
        }
        names.add(name);
        values.add(value);
        return this;
    }

    /**
     * The object on one line, without a trailing newline.
     *
     * @return the JSON text
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(64 + names.size() * 24);
        appendTo(sb);
        return sb.toString();
    }

    private void appendTo(StringBuilder sb) {
        sb.append('{');
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            appendString(sb, names.get(i));
            sb.append(':');
            appendValue(sb, values.get(i));
        }
        sb.append('}');
    }

    private static void appendValue(StringBuilder sb, Object v) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> appendString(sb, s);
            case Double d -> sb.append(Double.isFinite(d) ? d.toString() : "null");
            case JsonObject o -> o.appendTo(sb);
            case java.util.List<?> l -> {
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    appendValue(sb, l.get(i));
                }
                sb.append(']');
            }
            case long[] a -> {
                sb.append('[');
                for (int i = 0; i < a.length; i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append(a[i]);
                }
                sb.append(']');
            }
            default -> sb.append(v);
        }
    }

    private static void appendString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
