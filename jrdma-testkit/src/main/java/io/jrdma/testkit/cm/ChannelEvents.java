package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.EventChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Bounded waits on an {@link EventChannel}: every method gives up after a deadline instead of
 * hanging the build.
 */
final class ChannelEvents {
    private final EventChannel channel;
    private final Duration wait;

    ChannelEvents(EventChannel channel, Duration wait) {
        this.channel = channel;
        this.wait = wait;
    }

    /** The channel. */
    EventChannel channel() {
        return channel;
    }

    /** The next event within the wait, not acknowledged; fails if none comes. */
    CmEvent nextUnacked() {
        try {
            CmEvent e = channel.getEvent(wait);
            if (e == null) {
                fail("no CM event within " + wait);
            }
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for a CM event", ie);
        }
    }

    /** The next event within the wait, acknowledged. */
    CmEvent next() {
        CmEvent e = nextUnacked();
        channel.ackEvent(e);
        return e;
    }

    /** The next event, which must be of {@code type}; acknowledged. */
    CmEvent expect(CmEventType type) {
        CmEvent e = nextUnacked();
        channel.ackEvent(e);
        assertThat(e.type()).as("expected %s, got %s", type, e).isEqualTo(type);
        return e;
    }

    /** The next event, which must be of {@code type} and for {@code id}; acknowledged. */
    CmEvent expect(CmEventType type, CmId id) {
        CmEvent e = expect(type);
        assertThat(e.id()).as("%s for the wrong id", e).isSameAs(id);
        return e;
    }

    /** The next event, which must be of {@code type}; left unacknowledged. */
    CmEvent expectUnacked(CmEventType type) {
        CmEvent e = nextUnacked();
        assertThat(e.type()).as("expected %s, got %s", type, e).isEqualTo(type);
        return e;
    }

    /**
     * The next event of {@code type}, acknowledging and skipping TIMEWAIT_EXIT events that arrive
     * first (they follow a disconnect at their own pace).
     */
    CmEvent expectSkippingTimewait(CmEventType type) {
        while (true) {
            CmEvent e = next();
            if (e.type() == CmEventType.TIMEWAIT_EXIT && type != CmEventType.TIMEWAIT_EXIT) {
                continue;
            }
            assertThat(e.type()).as("expected %s, got %s", type, e).isEqualTo(type);
            return e;
        }
    }

    /** Fails if an event arrives within {@code quiet}. */
    void expectNone(Duration quiet) {
        try {
            CmEvent e = channel.getEvent(quiet);
            if (e != null) {
                channel.ackEvent(e);
                fail("unexpected CM event " + e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ie);
        }
    }

    /** Every event arriving within {@code quiet} (acknowledged). */
    List<CmEvent> drain(Duration quiet) {
        List<CmEvent> out = new ArrayList<>();
        try {
            CmEvent e;
            while ((e = channel.getEvent(quiet)) != null) {
                channel.ackEvent(e);
                out.add(e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ie);
        }
        return out;
    }
}
