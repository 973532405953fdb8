/**
 * The InfiniBand Communication Manager (IBTA Vol 1 ch. 12, Linux {@code cm.c}): the connection state
 * machine of each id, REQ/REP/RTU, REJ, MRA, DREQ/DREP, SIDR and timewait, over a device's
 * {@link io.jrdma.spi.IbCmProvider}, and rdma_cm's private-data header
 * ({@link io.jrdma.internal.cm.ib.CmaHeader}). The messages themselves are the records of
 * {@code io.jrdma.spi.ibcm}, which the providers carry.
 */
package io.jrdma.internal.cm.ib;
