package io.jrdma.siw.wire;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Unaligned value layouts shared by the iWARP codecs: network order, plus little-endian for the CRC. */
final class Wire {
    /** Big-endian unsigned 16-bit field (read with {@link Short#toUnsignedInt}). */
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Big-endian 32-bit field. */
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Big-endian 64-bit field. */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Little-endian 32-bit field: the MPA CRC trailer. */
    static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Wire() {
    }
}
