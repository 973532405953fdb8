/**
 * The rxe provider: RoCEv2 devices ({@link io.jrdma.rxe.RxeDevice}) configured from
 * {@code jrdma.rxe.*} system properties ({@link io.jrdma.rxe.RxeConfig}), found through
 * {@link io.jrdma.rxe.RxeProvider}, with rxe-style counters ({@link io.jrdma.verbs.Counter}).
 * Linux counterparts: {@code rxe.c}, {@code rxe_verbs.c}, {@code rxe_param.h},
 * {@code rxe_hw_counters.c}.
 */
package io.jrdma.rxe;
