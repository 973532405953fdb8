/**
 * The rxe data-path engine: the agent that owns the devices' UDP sockets, checks and seals ICRCs,
 * demultiplexes packets by QPN and runs the QPs and their timers
 * ({@link io.jrdma.rxe.net.RxeEngine}; Linux {@code rxe_net.c}, {@code rxe_recv.c}), the parsed
 * packet view, pooled buffers, resolved peers and the fault injector.
 */
package io.jrdma.rxe.net;
