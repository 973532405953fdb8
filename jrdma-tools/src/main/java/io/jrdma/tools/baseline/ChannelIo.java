package io.jrdma.tools.baseline;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * Reads and writes one TCP or connected UDP channel in an {@link IoMode}: spinning on a
 * non-blocking channel, sleeping in a blocking call, or sleeping in a selector.
 *
 * <p>Hot path: no allocation, no locks. Busy-poll spins and yields the CPU every
 * {@link #SPINS_BEFORE_YIELD} empty polls. Selector waits use the {@code select(Consumer, timeout)}
 * form with a shared no-op action, so no selected-key set grows. A closed channel (for example by
 * the stall watchdog) ends any wait with {@link ClosedChannelException}.
 */
final class ChannelIo implements Closeable {

    /**
     * Busy-poll yields the CPU after this many consecutive empty polls: on a machine with fewer
     * free cores than spinning threads (the 2-core test machine runs a spinning client and a
     * spinning server), a spinner that never yields can hold the core its peer needs for a whole
     * scheduler slice, turning a 7 &micro;s round trip into milliseconds. With a core each, a poll
     * loop rarely reaches this count before data arrives.
     */
    static final int SPINS_BEFORE_YIELD = 64;

    /** Longest single selector sleep, so a closed channel is noticed. */
    private static final long SELECT_SLICE_MILLIS = 100;

    private static final Consumer<SelectionKey> IGNORE = k -> { };

    private final SelectableChannel selectable;
    private final ByteChannel channel;
    private final IoMode mode;
    private final Selector selector;
    private final SelectionKey key;
    private int emptyPolls;

    private <C extends SelectableChannel & ByteChannel> ChannelIo(C ch, IoMode mode) throws IOException {
        this.selectable = ch;
        this.channel = ch;
        this.mode = mode;
        ch.configureBlocking(mode == IoMode.BLOCKING);
        if (mode == IoMode.EVENTS) {
            selector = Selector.open();
            key = ch.register(selector, 0);
        } else {
            selector = null;
            key = null;
        }
    }

    /**
     * Wraps a channel, switching it to the blocking mode the I/O mode needs.
     *
     * @param ch a socket or connected datagram channel
     * @param mode the I/O mode
     * @param <C> the channel type
     * @return the wrapper
     * @throws IOException if the channel cannot be configured
     */
    static <C extends SelectableChannel & ByteChannel> ChannelIo of(C ch, IoMode mode) throws IOException {
        return new ChannelIo(ch, mode);
    }

    /**
     * Reads at least one byte (TCP) or one datagram (UDP), waiting as the mode says.
     *
     * @param b the buffer, with room left
     * @return bytes read, or -1 at end of stream
     * @throws IOException on a failed or closed channel
     */
    int read(ByteBuffer b) throws IOException {
        for (;;) {
            int n = channel.read(b);
            if (n != 0) {
                emptyPolls = 0;
                return n;
            }
            await(SelectionKey.OP_READ);
        }
    }

    /**
     * Fills the buffer.
     *
     * @param b the buffer
     * @throws EOFException if the stream ends first
     * @throws IOException on a failed or closed channel
     */
    void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (read(b) < 0) {
                throw new EOFException("end of stream with " + b.remaining() + " bytes to go");
            }
        }
    }

    /**
     * Writes the whole buffer (for UDP: sends it as one datagram).
     *
     * @param b the buffer
     * @throws IOException on a failed or closed channel
     */
    void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.write(b) == 0) {
                await(SelectionKey.OP_WRITE);
            } else {
                emptyPolls = 0;
            }
        }
    }

    private void await(int op) throws IOException {
        switch (mode) {
            case BUSY_POLL -> {
                if (++emptyPolls % SPINS_BEFORE_YIELD == 0) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                if (!selectable.isOpen()) {
                    throw new ClosedChannelException();
                }
            }
            case EVENTS -> {
                if (!selectable.isOpen() || !key.isValid()) {
                    throw new ClosedChannelException();
                }
                try {
                    key.interestOps(op);
                } catch (CancelledKeyException e) {
                    throw new ClosedChannelException();
                }
                selector.select(IGNORE, SELECT_SLICE_MILLIS);
            }
            case BLOCKING -> {
                // A blocking channel returned 0: a full datagram socket buffer; try again.
                Thread.onSpinWait();
            }
            default -> throw new IllegalStateException(mode.toString());
        }
    }

    /**
     * Closes the channel and the selector.
     *
     * @throws IOException if closing fails
     */
    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            if (selector != null) {
                selector.close();
            }
        }
    }
}
