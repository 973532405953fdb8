/**
 * Coverage-guided fuzz tests (Jazzer, {@code @FuzzTest}) of the iWARP wire decoders and of a live siw
 * QP's receive path. Without {@code JAZZER_FUZZ} each runs its seed corpus (golden captures of Linux
 * siw plus every crash ever found) as regression tests; with it, Jazzer fuzzes for the configured
 * time. See docs/reliability.md.
 */
package io.jrdma.siw.fuzz;
