package io.jrdma.endpoint;

import io.jrdma.verbs.RdmaException;

/**
 * Receives an endpoint's messages as they arrive ({@link EndpointOptions#withHandler}), on the thread
 * that delivers the endpoint's completions: the {@link CompletionGroup}'s thread, or the thread calling
 * {@link CompletionGroup#poll()}. One call at a time per group; a slow handler delays every endpoint of
 * its group. A handler may send, and may close the endpoint.
 */
@FunctionalInterface
public interface MessageHandler {
    /**
     * A message arrived. Its buffer goes back to the receive queue when this method returns: copy what
     * is kept ({@link Message#toArray()}); do not close it.
     *
     * @param endpoint the endpoint it arrived on
     * @param message the message, valid during the call
     */
    void onMessage(Endpoint endpoint, Message message);

    /**
     * The connection ended without the endpoint being closed here: the peer disconnected, or the
     * connection failed (the cause says how). Called once; the endpoint still needs closing.
     *
     * @param endpoint the endpoint
     * @param cause what ended it
     */
    default void onClosed(Endpoint endpoint, RdmaException cause) {
    }
}
