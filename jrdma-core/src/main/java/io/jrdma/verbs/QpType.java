package io.jrdma.verbs;

/** Queue-pair transport service ({@code enum ibv_qp_type}). */
public enum QpType {
    /** Reliable connected. */
    RC(2),
    /** Unreliable connected. */
    UC(3),
    /** Unreliable datagram. */
    UD(4);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** The libibverbs value. */
    public int value() {
        return value;
    }
}
