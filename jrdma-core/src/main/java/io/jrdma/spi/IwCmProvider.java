package io.jrdma.spi;

/** The iWARP connection hooks of a device (Linux {@code struct iw_cm_verbs}). */
public non-sealed interface IwCmProvider extends CmTransport {
}
