package io.jrdma.cm;

/**
 * Enhanced Connection Establishment data ({@code struct ibv_ece}): a vendor id and the options
 * offered in a connect and answered in an accept (IB/RoCE; iWARP has none).
 *
 * @param vendorId 24-bit vendor id (0 = none)
 * @param options 32-bit option mask carried in the CM MAD's attribute modifier
 */
public record Ece(int vendorId, int options) {
    /** No ECE. Linux: a zeroed {@code struct ibv_ece}. */
    public static final Ece NONE = new Ece(0, 0);

    /** Validates the vendor id range. Linux: {@code struct ibv_ece} ({@code vendor_id}, {@code options}). */
    public Ece {
        if ((vendorId & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("ECE vendor id is 24 bits: 0x" + Integer.toHexString(vendorId));
        }
    }
}
