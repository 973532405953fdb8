/**
 * The InfiniBand Communication Manager's messages (IBTA Vol 1 ch. 12) as transport-neutral records, as
 * core's IB CM hands them to an {@link io.jrdma.spi.IbCmProvider} and takes them back:
 * {@link io.jrdma.spi.ibcm.CmMessage} and its records REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ and
 * SIDR_REP, the path a REQ carries ({@link io.jrdma.spi.ibcm.CmPath}) and the byte strings of their
 * private data and additional information ({@link io.jrdma.spi.ibcm.Octets}).
 *
 * <p>The records hold every field of the message with the width IBTA gives it; their constructors
 * check those widths and the private-data limits and do nothing else. How the fields are laid out in
 * a MAD is the provider's business (jrdma-rxe encodes them as CM MADs on QP1; the loop provider hands
 * the records over in memory). Field names follow Linux's {@code include/rdma/ibta_vol1_c12.h}
 * (behaviour reference only).
 */
package io.jrdma.spi.ibcm;
