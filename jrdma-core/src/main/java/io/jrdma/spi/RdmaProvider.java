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
     * The devices this provider offers from the start (like {@code rdma link add siw0 type siw netdev eth0}
     * at boot); called once per JVM. Their configuration comes from system properties named
     * {@code jrdma.<provider>.*}; devices configured otherwise are opened with {@link #open}.
     */
    List<ProviderDevice> devices();

    /**
     * Creates a device from a typed configuration ({@link io.jrdma.verbs.Rdma#open}); core has checked
     * that {@code config.provider()} is this provider and that the name is free. The device lives until
     * core calls its {@link ProviderDevice#close()}. Providers that take no configuration keep the
     * default.
     *
     * @param config the configuration, of the provider's own type
     * @return the new device
     * @throws IllegalArgumentException if {@code config} is not of the provider's type
     * @throws UnsupportedOperationException if the provider opens no device from a configuration
     */
    default ProviderDevice open(io.jrdma.verbs.DeviceConfig config) {
        throw new UnsupportedOperationException(name() + " opens no device from a configuration");
    }
}
