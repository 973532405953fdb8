/**
 * The InfiniBand Communication Manager's messages (IBTA Vol 1 ch. 12) as transport-neutral records:
 * {@link io.jrdma.internal.cm.ib.CmMessage} and its records REQ, MRA, REJ, REP, RTU, DREQ, DREP,
 * SIDR_REQ and SIDR_REP, the reject reasons ({@link io.jrdma.internal.cm.ib.RejReason}) and rdma_cm's
 * private-data header ({@link io.jrdma.internal.cm.ib.CmaHeader}).
 *
 * <p>The records hold every field of the message with the width IBTA gives it; their constructors
 * check those widths and the private-data limits and do nothing else. How the fields are laid out in
 * a MAD is the provider's business (jrdma-rxe's {@code CmMadCodec}). Field names follow Linux's
 * {@code include/rdma/ibta_vol1_c12.h} (behaviour reference only).
 */
package io.jrdma.internal.cm.ib;
