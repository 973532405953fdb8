/**
 * The IB CM over RoCEv2 as Linux rxe and ib_cm speak it: {@link io.jrdma.rxe.cm.CmMadCodec} turns
 * jrdma-core's transport-neutral CM records into 256-byte MADs and QP1 datagrams and back.
 */
package io.jrdma.rxe.cm;
