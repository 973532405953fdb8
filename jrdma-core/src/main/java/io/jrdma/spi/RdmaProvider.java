package io.jrdma.spi;

import java.util.List;

/**
 * A software RDMA provider, found through {@link java.util.ServiceLoader} (the counterpart of
 * rdma-core's {@code PROVIDER_DRIVER} + {@code verbs_device_ops}). Declare it in {@code module-info}
 * with {@code provides io.jrdma.spi.RdmaProvider with ...} and in
 * {@code META-INF/services/io.jrdma.spi.RdmaProvider}.
 */
public interface RdmaProvider {
    /** Preference of iWARP providers when several serve one address (rdma_cm picks the first). */
    int PRIORITY_IWARP = 10;
    /** Preference of RoCE providers. */
    int PRIORITY_ROCE = 20;
    /** Preference of the in-process loop provider. */
    int PRIORITY_LOOP = 30;

    /** The provider name: {@code loop}, {@code siw}, {@code rxe}. */
    String name();

    /**
     * Lower is preferred when several devices serve one address. Linux: the order devices are registered in, which
     * decides {@code cma_acquire_dev_by_src_ip}.
     */
    int priority();

    /**
     * The devices this provider offers (like {@code rdma link add siw0 type siw netdev eth0}); called
     * once per JVM. Configuration comes from system properties named {@code jrdma.<provider>.*}.
     */
    List<ProviderDevice> devices();
}
