package io.jrdma.internal.cm.ib;

import io.jrdma.spi.ibcm.CmMessage;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-device CM message counters, named after Linux's {@code cm_tx_msgs}, {@code cm_tx_retries},
 * {@code cm_rx_msgs} and {@code cm_rx_duplicates} groups, indexed by attribute (REQ..SIDR_REP), and
 * jrdma's {@code cm_rx_dropped}: messages that matched no connection (by the exact comm-id pair and the
 * sender) and were dropped, or answered only as an unknown connection is (a DREP to a DREQ, a REJ to a REP).
 */
public final class IbCmCounters {
    /** Counter groups. */
    public enum Group {
        /** Messages sent. */
        TX_MSGS,
        /** Retransmissions. */
        TX_RETRIES,
        /** Messages received. */
        RX_MSGS,
        /** Duplicates received. */
        RX_DUPLICATES,
        /** Received messages that matched no connection or came from another node than its peer. */
        RX_DROPPED
    }

    private static final int ATTRS = 9;
    private final AtomicLongArray counts = new AtomicLongArray(Group.values().length * ATTRS);

    private static int attr(CmMessage m) {
        return m.attributeId() - CmMessage.ATTR_REQ;
    }

    void sent(CmMessage m) {
        counts.incrementAndGet(Group.TX_MSGS.ordinal() * ATTRS + attr(m));
    }

    void retry(CmMessage m) {
        counts.incrementAndGet(Group.TX_RETRIES.ordinal() * ATTRS + attr(m));
    }

    void received(CmMessage m) {
        counts.incrementAndGet(Group.RX_MSGS.ordinal() * ATTRS + attr(m));
    }

    void duplicate(CmMessage m) {
        counts.incrementAndGet(Group.RX_DUPLICATES.ordinal() * ATTRS + attr(m));
    }

    void dropped(CmMessage m) {
        counts.incrementAndGet(Group.RX_DROPPED.ordinal() * ATTRS + attr(m));
    }

    /** The count of a group for an attribute id (0x10..0x18). */
    public long get(Group g, int attributeId) {
        return counts.get(g.ordinal() * ATTRS + attributeId - CmMessage.ATTR_REQ);
    }
}
