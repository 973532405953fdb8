package io.jrdma.siw.wire;

/** Outcome of {@link Terminate#decode}: need more bytes, a TERMINATE, or the problem; never an exception. */
public sealed interface TerminateResult
        permits TerminateResult.NeedMore, TerminateResult.Decoded, TerminateResult.Malformed {

    /**
     * Not enough bytes: nothing was consumed.
     *
     * @param needed how many more bytes are needed, at least 1
     */
    record NeedMore(int needed) implements TerminateResult {
    }

    /**
     * A TERMINATE.
     *
     * @param terminate the message
     * @param layout the control word layout it was read with ({@link TermLayout#detect})
     * @param msn its MSN (siw sends 1, and accepts only the MSN it expects, 1)
     * @param length bytes of the whole FPDU, pad and CRC trailer included
     */
    record Decoded(Terminate terminate, TermLayout layout, int msn, int length) implements TerminateResult {
    }

    /**
     * Not an acceptable TERMINATE.
     *
     * @param problem what is wrong
     * @param detail a human-readable description with the offending values
     */
    record Malformed(TerminateProblem problem, String detail) implements TerminateResult {
    }
}
