package io.jrdma.siw.fault;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Rdma;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM for {@link PortEventsIT}: opens siw0 (its addresses set with {@code -Djrdma.siw.addresses}),
 * prints {@code EVENT <type> <port>} for every asynchronous event and {@code READY} once the handler is
 * set; answers {@code state} on stdin with {@code STATE <port 1 state>}; ends at {@code exit} or EOF.
 */
public final class PortWatchMain {
    private PortWatchMain() {
    }

    /** Runs the watcher. */
    public static void main(String[] args) throws Exception {
        try (Context ctx = Rdma.device("siw0").open()) {
            ctx.setAsyncEventHandler(e -> {
                System.out.println("EVENT " + e.type() + " " + e.port());
                System.out.flush();
            });
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.strip().equals("exit")) {
                if (line.strip().equals("state")) {
                    System.out.println("STATE " + ctx.queryPort(1).state());
                    System.out.flush();
                }
            }
        }
    }
}
