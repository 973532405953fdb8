package io.jrdma.verbs;

/**
 * Memory access flags ({@code enum ibv_access_flags}), combined with {@code |}. The values are
 * libibverbs' bits.
 */
public final class Access {
    /**
     * Local write access: the HCA may write the region (receives, READ responses, atomics' results). Linux:
     * {@code IBV_ACCESS_LOCAL_WRITE}.
     */
    public static final int LOCAL_WRITE = 1;
    /**
     * Remote peers may RDMA WRITE into the region. Requires {@link #LOCAL_WRITE}. Linux:
     * {@code IBV_ACCESS_REMOTE_WRITE}.
     */
    public static final int REMOTE_WRITE = 1 << 1;
    /** Remote peers may RDMA READ the region. Linux: {@code IBV_ACCESS_REMOTE_READ}. */
    public static final int REMOTE_READ = 1 << 2;
    /**
     * Remote peers may perform atomics on the region. Requires {@link #LOCAL_WRITE}. Linux:
     * {@code IBV_ACCESS_REMOTE_ATOMIC}.
     */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Every flag jrdma understands. Linux: the {@code IBV_ACCESS_*} flags above or-ed together. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access() {
    }

    /**
     * Whether {@code flags} contains every bit of {@code wanted}. A jrdma helper (a bit test on
     * {@code enum ibv_access_flags}).
     */
    public static boolean has(int flags, int wanted) {
        return (flags & wanted) == wanted;
    }

    /**
     * Human-readable form, e.g. {@code LOCAL_WRITE|REMOTE_READ}. Flags by their libibverbs names without the
     * {@code IBV_ACCESS_} prefix.
     */
    public static String toString(int flags) {
        if (flags == 0) {
            return "NONE";
        }
        StringBuilder sb = new StringBuilder();
        String[] names = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"};
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        int rest = flags & ~ALL;
        if (rest != 0) {
            sb.append(sb.isEmpty() ? "" : "|").append("0x").append(Integer.toHexString(rest));
        }
        return sb.toString();
    }
}
