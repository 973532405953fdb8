/**
 * The provider SPI: how a transport (loop, siw, rxe) plugs into jrdma's verbs and connection
 * manager ({@link io.jrdma.spi.RdmaProvider}), or supplies whole devices ({@link io.jrdma.spi.DeviceProvider},
 * e.g. the kernel's through rdma-core). Providers are found with {@link java.util.ServiceLoader}.
 */
package io.jrdma.spi;
