package io.jrdma.cm;

import io.jrdma.verbs.QpType;

/**
 * rdma_cm port spaces ({@code enum rdma_ucm_port_space}). On IB/RoCE the service ID of a port is
 * {@code (value << 16) + port}.
 */
public enum PortSpace {
    /** IPoIB port space. */
    IPOIB(0x0002, QpType.UD),
    /** Connected (RC) port space; the only one on iWARP, where it is the TCP port itself. */
    TCP(0x0106, QpType.RC),
    /** Unconnected (UD) port space, resolved with SIDR. */
    UDP(0x0111, QpType.UD),
    /** Native IB port space (RC or UD). */
    IB(0x013F, QpType.RC);

    /** {@code RDMA_IB_IP_PS_MASK}: the high 48 bits of an IP-based service ID. */
    public static final long SERVICE_ID_PS_MASK = 0xFFFF_FFFF_FFFF_0000L;

    private final int value;
    private final QpType defaultQpType;

    PortSpace(int value, QpType defaultQpType) {
        this.value = value;
        this.defaultQpType = defaultQpType;
    }

    /** The librdmacm value. */
    public int value() {
        return value;
    }

    /**
     * The QP type this port space uses unless told otherwise. Linux: the {@code qp_type} {@code rdma_create_id} pairs
     * with the port space.
     */
    public QpType defaultQpType() {
        return defaultQpType;
    }

    /** {@code rdma_get_service_id}: {@code (ps << 16) + port}. */
    public long serviceId(int port) {
        return ((long) value << 16) + (port & 0xFFFF);
    }

    /** The port space of an IP-based service ID, or {@code null}. Linux: {@code rdma_ps_from_service_id}. */
    public static PortSpace ofServiceId(long serviceId) {
        if ((serviceId & 0xFFFF_FFFF_0000_0000L) != 0) {
            return null;
        }
        int ps = (int) ((serviceId >>> 16) & 0xFFFF);
        for (PortSpace p : values()) {
            if (p.value == ps) {
                return p;
            }
        }
        return null;
    }

    /** The port of an IP-based service ID. Linux: {@code cma_port_from_service_id}. */
    public static int portOfServiceId(long serviceId) {
        return (int) (serviceId & 0xFFFF);
    }
}
