package io.jrdma.verbs;

/**
 * A device the program opened with a configuration ({@link Rdma#open}) and owns. Until it is closed it
 * is one of the JVM's devices like those the system properties create: {@link Rdma#device} finds it by
 * name, {@link Rdma#devices()} lists it, and a connection manager uses it when opened with its name
 * ({@code RdmaCm.open("siw1")}) or when it is the first device serving an address. Thread-safe.
 * Linux: a link added with {@code rdma link add}; closing it is {@code rdma link delete}.
 */
public interface OwnedDevice extends Device, AutoCloseable {
    /** The configuration the device was opened with. */
    DeviceConfig config();

    /**
     * Removes the device: every context still open on it gets {@link AsyncEventType#DEVICE_FATAL} and is
     * closed with everything on it (its QPs flushed), connection-manager ids on it see DEVICE_REMOVAL, the
     * name is free again, and the provider releases the device's threads and sockets. Idempotent.
     */
    @Override
    void close();
}
