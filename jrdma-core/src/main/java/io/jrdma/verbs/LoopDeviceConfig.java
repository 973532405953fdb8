package io.jrdma.verbs;

import java.util.Objects;

/**
 * The configuration of a device of the in-process {@code loop} provider ({@link Rdma#open}): a name.
 * Every loop device serves the loopback addresses and moves data between QPs of this JVM; connection
 * managers restricted to the device by name ({@code RdmaCm.open("loop7")}) keep their connections on it.
 *
 * @param name the device's name
 */
public record LoopDeviceConfig(String name) implements DeviceConfig {
    /** The loop provider's name. */
    public static final String PROVIDER = "loop";

    /** Checks the name. */
    public LoopDeviceConfig {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a device needs a name");
        }
    }

    /** A loop device called {@code name}. */
    public static LoopDeviceConfig named(String name) {
        return new LoopDeviceConfig(name);
    }

    @Override
    public String provider() {
        return PROVIDER;
    }
}
