package io.jrdma.spi;

import io.jrdma.verbs.Device;
import java.util.List;
import java.util.Optional;

/**
 * A provider that supplies whole devices, found through {@link java.util.ServiceLoader}: each of its
 * devices implements the public verbs interfaces ({@link Device}, {@link io.jrdma.verbs.Context} and
 * everything a context makes) itself, instead of handing core a {@link ProviderDevice} whose protection
 * domains, regions, queues and QPs core implements. This is how devices driven outside jrdma (the
 * kernel's, through rdma-core) join {@link io.jrdma.verbs.Rdma#devices()}.
 *
 * <p>Declare it with {@code provides io.jrdma.spi.DeviceProvider with ...} in {@code module-info} and in
 * {@code META-INF/services/io.jrdma.spi.DeviceProvider}. Its devices are listed after the software
 * providers' and are named {@code PROVIDER:NAME} (e.g. {@code native:siw0}) wherever a device is looked
 * up, or plain {@code NAME} when no software device has that name.
 */
public interface DeviceProvider {
    /** The provider name, the {@code PROVIDER} of {@code PROVIDER:NAME} (e.g. {@code native}). */
    String name();

    /**
     * The devices the provider offers; called once per JVM, before {@link #unavailableReason()}. An
     * unusable provider returns an empty list and must not throw.
     */
    List<Device> devices();

    /**
     * Why the provider offers no device (one line, e.g. {@code libibverbs.so.1 not found} or {@code no RDMA
     * devices in /sys/class/infiniband}), or empty when it offers devices.
     */
    Optional<String> unavailableReason();

    /**
     * The connection manager of the provider's devices, if it has one: {@link io.jrdma.cm.RdmaCm} hands it
     * the ids whose addresses its devices serve (see {@link ProviderCm}). Without one, the provider's
     * devices serve no address of {@code io.jrdma.cm} and their QPs are connected by hand.
     *
     * @return the connection manager, or empty (the default)
     */
    default Optional<ProviderCm> connectionManager() {
        return Optional.empty();
    }
}
