/**
 * Coverage-guided fuzz tests (Jazzer, {@code @FuzzTest}) of the RoCEv2 decoders: the BTH and
 * extended headers, the ICRC check, the CM MADs. Without {@code JAZZER_FUZZ} each runs its seed corpus
 * (golden captures of Linux rxe plus every crash ever found); with it, Jazzer fuzzes for the configured
 * time. The live receive path is fuzzed by {@code io.jrdma.rxe.RxeReceiveFuzzTest}. See docs/reliability.md.
 */
package io.jrdma.rxe.fuzz;
