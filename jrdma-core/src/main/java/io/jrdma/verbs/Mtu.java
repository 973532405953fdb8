package io.jrdma.verbs;

/** Path MTU ({@code enum ibv_mtu}). */
public enum Mtu {
    /** 256 bytes. */
    MTU_256(1, 256),
    /** 512 bytes. */
    MTU_512(2, 512),
    /** 1024 bytes. */
    MTU_1024(3, 1024),
    /** 2048 bytes. */
    MTU_2048(4, 2048),
    /** 4096 bytes. */
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** The IBTA enumeration value (1..5). */
    public int value() {
        return value;
    }

    /** The MTU in bytes. Linux: {@code ibv_mtu_to_num}. */
    public int bytes() {
        return bytes;
    }

    /** The MTU with this IBTA enumeration value. */
    public static Mtu ofValue(int value) {
        for (Mtu m : values()) {
            if (m.value == value) {
                return m;
            }
        }
        throw new IllegalArgumentException("no IB MTU with enumeration value " + value);
    }

    /**
     * The largest IB MTU not above {@code bytes}. Linux: what {@code rdma_cm} and rxe do to turn a netdev MTU into an
     * {@code enum ibv_mtu}.
     */
    public static Mtu atMost(int bytes) {
        Mtu best = MTU_256;
        for (Mtu m : values()) {
            if (m.bytes <= bytes) {
                best = m;
            }
        }
        return best;
    }
}
