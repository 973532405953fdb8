package io.jrdma.testkit;

import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;

/**
 * An immutable copy of a {@link WorkCompletion}, for tests that keep completions after the poll
 * array is reused.
 *
 * @param wrId the work request id
 * @param status the status
 * @param opcode the opcode (meaningful on success only)
 * @param byteLen bytes transferred
 * @param immOrInvalidate immediate data or the invalidated rkey
 * @param qpNum the local QP number
 * @param srcQp the remote QP number (UD)
 * @param wcFlags the {@link WcFlags}
 */
public record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immOrInvalidate, int qpNum,
        int srcQp, int wcFlags) {

    /** A copy of {@code wc}. */
    public static Completion of(WorkCompletion wc) {
        return new Completion(wc.wrId(), wc.status(), wc.opcode(), wc.byteLen(), wc.immData(), wc.qpNum(),
                wc.srcQp(), wc.wcFlags());
    }

    /** Whether the status is success. */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /** Whether {@link WcFlags#WITH_IMM} is set. */
    public boolean hasImm() {
        return (wcFlags & WcFlags.WITH_IMM) != 0;
    }

    /** Whether {@link WcFlags#WITH_INV} is set. */
    public boolean hasInv() {
        return (wcFlags & WcFlags.WITH_INV) != 0;
    }

    /** Whether {@link WcFlags#GRH} is set. */
    public boolean hasGrh() {
        return (wcFlags & WcFlags.GRH) != 0;
    }
}
