/**
 * A provider of jrdma written against the published API and SPI only: it reads {@code io.jrdma.core}'s
 * exported packages ({@code io.jrdma.verbs}, {@code io.jrdma.cm}, {@code io.jrdma.spi},
 * {@code io.jrdma.spi.ibcm}) and nothing else.
 */
module com.example.provider {
    requires io.jrdma.core;

    exports com.example.provider;

    provides io.jrdma.spi.RdmaProvider with com.example.provider.ExampleProvider;
}
