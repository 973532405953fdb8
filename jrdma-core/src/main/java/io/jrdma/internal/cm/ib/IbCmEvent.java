package io.jrdma.internal.cm.ib;

import io.jrdma.spi.ibcm.CmMessage;



/**
 * An IB CM event ({@code struct ib_cm_event}).
 *
 * @param type the event type
 * @param message the message that caused it (REQ, REP, RTU, REJ, DREQ, DREP, MRA, SIDR_REQ, SIDR_REP),
 *     or {@code null} for timeouts and timewait exit
 * @param newId for REQ_RECEIVED and SIDR_REQ_RECEIVED, the id made for the request
 * @param status 0, or -ETIMEDOUT for the *_ERROR events
 */
public record IbCmEvent(Type type, CmMessage message, IbCmId newId, int status) {
    /** {@code enum ib_cm_event_type}. */
    public enum Type {
        /** No REP (or REJ/MRA) arrived for our REQ after every retry. */
        REQ_ERROR,
        /** A REQ arrived on a listener. */
        REQ_RECEIVED,
        /** No RTU arrived for our REP after every retry. */
        REP_ERROR,
        /** A REP arrived for our REQ. */
        REP_RECEIVED,
        /** An RTU arrived for our REP. */
        RTU_RECEIVED,
        /** The user declared the connection established (traffic before the RTU). */
        USER_ESTABLISHED,
        /** No DREP arrived for our DREQ after every retry. */
        DREQ_ERROR,
        /** A DREQ arrived. */
        DREQ_RECEIVED,
        /** A DREP arrived for our DREQ. */
        DREP_RECEIVED,
        /** Timewait ended. */
        TIMEWAIT_EXIT,
        /** An MRA arrived. */
        MRA_RECEIVED,
        /** A REJ arrived. */
        REJ_RECEIVED,
        /** No SIDR_REP arrived after every retry. */
        SIDR_REQ_ERROR,
        /** A SIDR_REQ arrived on a listener. */
        SIDR_REQ_RECEIVED,
        /** A SIDR_REP arrived. */
        SIDR_REP_RECEIVED
    }
}
