/**
 * The provider SPI: how a transport (loop, siw, rxe) plugs into jrdma's verbs and connection
 * manager. Providers are found with {@link java.util.ServiceLoader}.
 */
package io.jrdma.spi;
