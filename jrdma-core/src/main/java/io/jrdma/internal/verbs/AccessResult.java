package io.jrdma.internal.verbs;

/**
 * The outcome of checking a memory access against a region (Linux siw's {@code siw_check_mem} /
 * rxe's {@code check_rkey}). The transports map each to their wire answer: a TERMINATE code on
 * iWARP, a NAK on RoCE, a completion status locally.
 */
public final class AccessResult {
    /** The access is allowed. */
    public static final int OK = 0;
    /** No valid region has this key (never registered, deregistered, invalidated, stale 8-bit key). */
    public static final int INVALID_KEY = 1;
    /** The region belongs to another protection domain. */
    public static final int PD_MISMATCH = 2;
    /** The region lacks the access right the operation needs. */
    public static final int ACCESS_RIGHTS = 3;
    /** The range is not inside the region (or wraps around). */
    public static final int BOUNDS = 4;

    private AccessResult() {
    }

    /** A readable name for a result code. */
    public static String name(int result) {
        return switch (result) {
            case OK -> "OK";
            case INVALID_KEY -> "INVALID_KEY";
            case PD_MISMATCH -> "PD_MISMATCH";
            case ACCESS_RIGHTS -> "ACCESS_RIGHTS";
            case BOUNDS -> "BOUNDS";
            default -> "UNKNOWN(" + result + ")";
        };
    }
}
