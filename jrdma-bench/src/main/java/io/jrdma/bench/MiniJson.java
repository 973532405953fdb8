package io.jrdma.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Enough of a JSON reader for the bench's own {@code bench.json}: objects (as maps in field order), arrays,
 * strings with the escapes {@link Report} writes, numbers (as doubles), booleans and null.
 */
final class MiniJson {

    private final String s;
    private int i;

    MiniJson(String text) {
        this.s = text;
    }

    /**
     * The document's one value.
     *
     * @return a Map, List, String, Double, Boolean or null
     * @throws IllegalArgumentException at the first character that does not fit
     */
    Object value() {
        Object v = next();
        skipSpace();
        if (i != s.length()) {
            throw error("text after the value");
        }
        return v;
    }

    private Object next() {
        skipSpace();
        if (i >= s.length()) {
            throw error("end of text");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{' -> {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                skipSpace();
                if (peek('}')) {
                    return m;
                }
                do {
                    skipSpace();
                    String k = string();
                    skipSpace();
                    expect(':');
                    m.put(k, next());
                    skipSpace();
                } while (peek(','));
                expect('}');
                return m;
            }
            case '[' -> {
                i++;
                List<Object> l = new ArrayList<>();
                skipSpace();
                if (peek(']')) {
                    return l;
                }
                do {
                    l.add(next());
                    skipSpace();
                } while (peek(','));
                expect(']');
                return l;
            }
            case '"' -> {
                return string();
            }
            default -> {
                return literal();
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (i < s.length() && s.charAt(i) != '"') {
            char c = s.charAt(i++);
            if (c == '\\' && i < s.length()) {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            } else {
                b.append(c);
            }
        }
        expect('"');
        return b.toString();
    }

    private Object literal() {
        int start = i;
        while (i < s.length() && ",}] \n\r\t".indexOf(s.charAt(i)) < 0) {
            i++;
        }
        String t = s.substring(start, i);
        switch (t) {
            case "true" -> {
                return Boolean.TRUE;
            }
            case "false" -> {
                return Boolean.FALSE;
            }
            case "null" -> {
                return null;
            }
            default -> {
                try {
                    return Double.parseDouble(t);
                } catch (NumberFormatException e) {
                    i = start;
                    throw error("'" + t + "' is no JSON value");
                }
            }
        }
    }

    private boolean peek(char c) {
        if (i < s.length() && s.charAt(i) == c) {
            i++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private void skipSpace() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bench.json at character " + i + ": " + what);
    }
}
