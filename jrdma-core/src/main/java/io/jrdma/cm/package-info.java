/**
 * The RDMA connection manager: Linux {@code rdma_cm} semantics with librdmacm's user-facing shape.
 * Kernel-style ids with event handlers, librdmacm-style event channels on top, and the iWARP CM
 * ({@code iw_cm}) as an API of its own.
 */
package io.jrdma.cm;
