package com.example.provider;

import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import java.util.List;

/**
 * A provider written against jrdma's published API and SPI only: one device, {@value #DEVICE}, whose
 * protection domains, regions, CQs and QP state machine core implements, and whose IB CM datagram path
 * keeps what core's IB CM sends ({@link ExampleCm}). It is the smallest thing a provider implements:
 * {@link RdmaProvider} and {@link ProviderDevice} (here through {@link io.jrdma.spi.AbstractProviderDevice},
 * which keeps the device's facts), a {@link io.jrdma.spi.ProviderQp} per QP and a {@link io.jrdma.spi.CmTransport}.
 *
 * <p>Declared with {@code provides io.jrdma.spi.RdmaProvider with com.example.provider.ExampleProvider}
 * in {@code module-info} (and in {@code META-INF/services} for the class path).
 */
public final class ExampleProvider implements RdmaProvider {
    /** The provider name. */
    public static final String NAME = "example";
    /** The one device's name. */
    public static final String DEVICE = "example0";

    /** Used by {@link java.util.ServiceLoader}. */
    public ExampleProvider() {
    }

    /**
     * The device of this JVM (core asks for it once; tests read what it was handed).
     *
     * @return the device
     */
    public static ExampleDevice device() {
        return Holder.DEVICE;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** After the software providers: a device of its own address never competes with them. */
    @Override
    public int priority() {
        return PRIORITY_LOOP + 10;
    }

    @Override
    public List<ProviderDevice> devices() {
        return List.of(device());
    }

    private static final class Holder {
        static final ExampleDevice DEVICE = new ExampleDevice(ExampleProvider.DEVICE);
    }
}
