package io.jrdma.endpoint;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A received message: a view of one of the endpoint's registered receive buffers. Closing it posts
 * the buffer to the receive queue again, so the peer can send into it; until then that buffer is
 * out of use, and an endpoint whose messages are all held takes no more (the peer's sends wait in
 * RNR retries, or fail). Use it with try-with-resources.
 *
 * <p>Not thread-safe: hand a message to one thread at a time. Its memory is valid until it is closed
 * and until its endpoint is closed.
 */
public final class Message implements AutoCloseable {
    private final Endpoint endpoint;
    private final int slot;
    private final MemorySegment buffer;
    private int length;
    private boolean held;

    Message(Endpoint endpoint, int slot, MemorySegment buffer) {
        this.endpoint = endpoint;
        this.slot = slot;
        this.buffer = buffer;
    }

    /** Marks the message delivered with {@code bytes} of data (the completion's byte length). */
    void delivered(int bytes) {
        this.length = bytes;
        this.held = true;
    }

    /** The number of bytes received. */
    public int length() {
        return length;
    }

    /**
     * The received bytes, in registered memory.
     *
     * @throws IllegalStateException if the message was closed (its buffer is receiving again)
     */
    public MemorySegment data() {
        if (!held) {
            throw new IllegalStateException("the message was closed: its buffer takes the next message");
        }
        return buffer.asSlice(0, length);
    }

    /** A copy of the received bytes. */
    public byte[] toArray() {
        return data().toArray(ValueLayout.JAVA_BYTE);
    }

    /** The received bytes as UTF-8 text. */
    public String text() {
        return new String(toArray(), StandardCharsets.UTF_8);
    }

    /** The endpoint it arrived on. */
    public Endpoint endpoint() {
        return endpoint;
    }

    /** Gives the buffer back to the receive queue; idempotent. */
    @Override
    public void close() {
        if (held) {
            held = false;
            endpoint.repost(slot);
        }
    }

    @Override
    public String toString() {
        return "Message[" + length + " bytes" + (held ? "" : ", closed") + "]";
    }
}
