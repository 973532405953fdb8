package io.jrdma.verbs;

import java.util.Objects;

/**
 * A verbs or connection-manager call failed for a reason other than plain misuse of the API. It
 * carries the errno the equivalent libibverbs or librdmacm call would have set.
 *
 * <p>Misuse (a bad argument, a call in the wrong state) throws {@link IllegalArgumentException} or
 * {@link IllegalStateException}; conditions on the wire never throw on the data path but become
 * completion statuses and async events.
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errno errno;

    /** An exception with the given errno and message. */
    public RdmaException(Errno errno, String message) {
        super(message + " (" + Objects.requireNonNull(errno) + ")");
        this.errno = errno;
    }

    /** An exception with the given errno, message and cause. */
    public RdmaException(Errno errno, String message, Throwable cause) {
        super(message + " (" + Objects.requireNonNull(errno) + ")", cause);
        this.errno = errno;
    }

    /** The errno of the failed call. */
    public Errno errno() {
        return errno;
    }
}
