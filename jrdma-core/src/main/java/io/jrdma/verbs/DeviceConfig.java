package io.jrdma.verbs;

/**
 * The typed configuration of a device a program opens itself ({@link Rdma#open}): which provider
 * makes it, its name, and the provider's own settings. Each provider has its record — siw's
 * {@code SiwDeviceConfig}, rxe's {@code RxeDeviceConfig}, the loop provider's
 * {@link LoopDeviceConfig} — whose defaults are the provider's system properties, so
 * several devices configured differently live side by side in one JVM, beside the devices the
 * properties create. Implementations are immutable. Linux: the arguments of
 * {@code rdma link add NAME type TYPE netdev DEV} and the driver's module parameters.
 */
public interface DeviceConfig {
    /** The name of the provider that opens the device ({@code siw}, {@code rxe}, {@code loop}). */
    String provider();

    /** The device's name, unique among the JVM's devices (e.g. {@code siw1}). */
    String name();
}
