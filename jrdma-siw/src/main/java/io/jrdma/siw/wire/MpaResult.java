package io.jrdma.siw.wire;

import java.util.Optional;

/**
 * Outcome of {@link MpaFrame#decode}: need more bytes, a frame, or the specific problem. Never an
 * exception for bytes that came from the wire.
 */
public sealed interface MpaResult permits MpaResult.NeedMore, MpaResult.Decoded, MpaResult.Invalid {

    /**
     * Not enough bytes: nothing was consumed. When at least {@link MpaFrame#HEADER_LENGTH} bytes were
     * there, the header has passed every check and {@code needed} is the rest of the private data.
     *
     * @param needed how many more bytes are needed, at least 1
     */
    record NeedMore(int needed) implements MpaResult {
    }

    /**
     * A complete, supported frame.
     *
     * @param frame the request or reply
     * @param length bytes it took on the wire (20 + PD_Length)
     */
    record Decoded(MpaFrame frame, int length) implements MpaResult {
    }

    /**
     * The input cannot be accepted.
     *
     * @param problem what is wrong
     * @param detail a human-readable description with the offending values
     * @param frame the decoded frame when the problem is a refused feature
     *        ({@link MpaProblem#MARKERS_NOT_SUPPORTED}), so a reject reply can be built from it
     */
    record Invalid(MpaProblem problem, String detail, Optional<MpaFrame> frame) implements MpaResult {
    }
}
