package io.jrdma.internal.cm;

import java.time.Duration;

/**
 * The caller's bound on a connect ({@code connect(param, timeout)}): once it has passed, {@code expired} runs
 * and decides, under the CM's own locks, whether the connect is still unanswered. One virtual thread per
 * bounded connect, parked for the bound: a connect is rare next to the data path, and the check that
 * follows is the backend's (each knows what "still waiting" means for its CM).
 */
final class ConnectBound {
    private ConnectBound() {
    }

    /**
     * Runs {@code expired} once {@code timeout} has passed.
     *
     * @param timeout the caller's bound
     * @param expired what the backend does when the bound passes
     */
    static void after(Duration timeout, Runnable expired) {
        Thread.ofVirtual().name("jrdma-cm-connect-timeout").start(() -> {
            try {
                Thread.sleep(timeout);
            } catch (InterruptedException ie) {
                return;
            }
            expired.run();
        });
    }
}
