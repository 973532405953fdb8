package io.jrdma.internal.cm.ib;

import io.jrdma.spi.ibcm.CmMessage;
import java.util.function.Predicate;

/**
 * An IB CM datagram path that can lose messages on purpose, for tests: a silent peer (drop every
 * REQ), a lost RTU, a lossy link. A provider's {@link io.jrdma.spi.IbCmProvider} implements it when
 * it can; the connection manager never calls it. Dropped messages are still counted as sent by the
 * IB CM ({@link IbCmCounters.Group#TX_MSGS}): they are lost on the wire, not withheld by the CM.
 */
public interface LossyCmPath {
    /**
     * Drops every message {@code filter} matches from now on, instead of the previous filter;
     * {@code null} drops nothing. The filter runs on the sending thread and must not block.
     */
    void dropWhen(Predicate<CmMessage> filter);
}
