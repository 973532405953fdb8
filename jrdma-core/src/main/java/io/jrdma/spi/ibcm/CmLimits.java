package io.jrdma.spi.ibcm;

/** Checks shared by the CM records' constructors: field widths and private-data limits. */
final class CmLimits {
    private CmLimits() {
    }

    static int bits(String field, int value, int width) {
        if (width < 32 && (value >>> width) != 0) {
            throw new IllegalArgumentException(field + " is a " + width + "-bit field, got " + Integer.toUnsignedString(
                    value) + " (0x" + Integer.toHexString(value) + ")");
        }
        return value;
    }

    static Octets upTo(String field, Octets value, int limit) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null (use Octets.empty())");
        }
        if (value.length() > limit) {
            throw new IllegalArgumentException(field + " is at most " + limit + " bytes, got " + value.length());
        }
        return value;
    }

    static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }
}
