package io.jrdma.tools.baseline;

/**
 * How a baseline waits for its socket. perftest polls the CQ by default and sleeps on a completion
 * channel with {@code -e}; the baselines offer the same choice plus plain blocking sockets, since
 * waking a blocked thread on another CPU is what the benchmark measured (about 80 &micro;s against
 * 7 &micro;s busy-polling for a 64-byte TCP round trip).
 */
public enum IoMode {
    /** Non-blocking sockets polled in a spin loop ({@link Thread#onSpinWait()}); the default. */
    BUSY_POLL("busy-poll"),
    /** Blocking sockets: the thread sleeps in the kernel until data or space arrives. */
    BLOCKING("blocking"),
    /** Non-blocking sockets and a {@link java.nio.channels.Selector} to sleep on ({@code -e}). */
    EVENTS("events");

    private final String label;

    IoMode(String label) {
        this.label = label;
    }

    /**
     * The name printed in banners and JSON.
     *
     * @return e.g. {@code "busy-poll"}
     */
    public String label() {
        return label;
    }
}
