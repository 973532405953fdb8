package io.jrdma.kernel;

/**
 * What every native object shares: a closed flag checked before each call, so a call after
 * {@code close()} is an {@link IllegalStateException} rather than a call on freed native memory. The
 * calls and {@code close()} synchronize on the object, so a close cannot free what a call in another
 * thread is using. Closing twice does nothing.
 */
abstract class NativeResource implements AutoCloseable {
    /** Whether the native object was destroyed; written under the object's lock. */
    protected volatile boolean closed;

    /** What the object is, for messages ({@code "QP 0x12"}). */
    abstract String what();

    /** Destroys the native object; throws (and stays open) when the library refuses. */
    abstract void destroy();

    /** Throws if closed. */
    final void check() {
        if (closed) {
            throw new IllegalStateException(what() + " is closed (destroyed)");
        }
    }

    /** Whether it is closed. */
    final boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            destroy();
            closed = true;
        }
        forget();
    }

    /** Removes the object from its parent's lists (after it was destroyed). */
    void forget() {
    }
}
