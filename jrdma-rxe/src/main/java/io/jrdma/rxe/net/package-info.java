/**
 * The rxe data path: a device's port ({@link io.jrdma.rxe.net.RxePort}: its sockets, QP table,
 * counters and capture; where each packet sent is sealed), and the engine that receives on the ports,
 * checks ICRCs, demultiplexes packets by QPN and runs the QPs and their timers
 * ({@link io.jrdma.rxe.net.RxeEngine}; Linux {@code rxe_net.c}, {@code rxe_recv.c}); the parsed
 * packet view, pooled buffers, resolved peers and the fault injector.
 */
package io.jrdma.rxe.net;
