package io.jrdma.tools.cli;

import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses message sizes as perftest's {@code -s} does: a decimal, octal ({@code 0...}) or hex
 * ({@code 0x...}) number with an optional {@code K} (&times;1024) or {@code M} (&times;1024&sup2;)
 * suffix; jrdma also accepts the lower-case suffixes. The converter for {@code --sizes} takes a
 * comma-separated list of the same.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.c}, {@code parser}, case 's'.
 */
public final class SizeConverter implements ITypeConverter<Integer> {

    /** The largest size a tool accepts, 1 GiB. */
    public static final int MAX_SIZE = 1 << 30;

    /** Creates the converter (picocli instantiates it). */
    public SizeConverter() {
    }

    @Override
    public Integer convert(String value) {
        return parse(value);
    }

    /**
     * Parses one size.
     *
     * @param text the text, e.g. {@code 64K}
     * @return the size in bytes
     * @throws TypeConversionException if the text is not a size from 1 to {@link #MAX_SIZE}
     */
    public static int parse(String text) {
        String t = text.strip();
        long factor = 1;
        if (t.endsWith("K") || t.endsWith("k")) {
            factor = 1024;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("M") || t.endsWith("m")) {
            factor = 1024 * 1024;
            t = t.substring(0, t.length() - 1);
        }
        long v;
        try {
            v = Long.decode(t) * factor;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + text + "' is not a size (examples: 64, 4K, 1M, 0x1000)");
        }
        if (v < 1 || v > MAX_SIZE) {
            throw new TypeConversionException("size " + text + " is outside 1.." + MAX_SIZE);
        }
        return (int) v;
    }

    /** Parses a comma-separated list of sizes for {@code --sizes}. */
    public static final class ListConverter implements ITypeConverter<List<Integer>> {

        /** Creates the converter (picocli instantiates it). */
        public ListConverter() {
        }

        @Override
        public List<Integer> convert(String value) {
            List<Integer> sizes = new ArrayList<>();
            for (String part : value.split(",")) {
                if (!part.isBlank()) {
                    sizes.add(parse(part));
                }
            }
            if (sizes.isEmpty()) {
                throw new TypeConversionException("'" + value + "' names no size");
            }
            return List.copyOf(sizes);
        }
    }
}
