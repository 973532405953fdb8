/**
 * The RC, UC and UD transport of an rxe QP: {@link io.jrdma.rxe.qp.RxeQp} with its requester,
 * completer and responder step machines (Linux {@code rxe_req.c}, {@code rxe_comp.c},
 * {@code rxe_resp.c}, behaviour ported).
 */
package io.jrdma.rxe.qp;
