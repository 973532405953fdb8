package io.jrdma.testkit.cm;

import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;

/**
 * An immutable copy of a {@link WorkCompletion} (the verbs type is a reusable flyweight).
 *
 * @param wrId work request id
 * @param status status
 * @param opcode opcode
 * @param byteLen received length
 * @param qpNum the QP the completion is for
 */
record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int qpNum) {
    static Completion of(WorkCompletion wc) {
        return new Completion(wc.wrId(), wc.status(), wc.opcode(), wc.byteLen(), wc.qpNum());
    }
}
