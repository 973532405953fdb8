package io.jrdma.spi;

/** The IB CM datagram path of a device (Linux's GSI QP1 MAD service). */
public non-sealed interface IbCmProvider extends CmTransport {
}
