package io.jrdma.disni.apps;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Runs a DiSNI application's {@code main} on this JVM's main thread, unchanged, for a test that starts it as a JVM.
 *
 * <p>With {@code --server} it prints {@link #READY} once the main thread waits for its first connection: in
 * {@code RdmaServerEndpoint.accept} (an endpoint group's server, which listens in {@code bind}) or in
 * {@code RdmaEventChannel.getCmEvent} (a server on the raw connection manager, which listens before it waits for the
 * CONNECT_REQUEST). Either wait begins after {@code rdma_listen} returned, so a client started after the line finds
 * the listener, on every transport (an rxe listener has no socket to probe).
 *
 * <p>If {@code main} throws, the exception is printed and the JVM exits with status 1 at once: an application that
 * does not close its endpoint group on the way out would otherwise stay alive in the group's CQ thread (not a daemon,
 * as in DiSNI), and the test would learn of the failure only at its time bound. A {@code main} that returns leaves
 * the JVM to end as it would.
 *
 * <p>Usage: {@code ExampleMain [--server] MAIN_CLASS ARGS...}.
 */
public final class ExampleMain {
    /** The line printed once a server waits for a connection. */
    public static final String READY = "ExampleMain: the server waits for a connection";
    private static final String SERVER = "--server";
    private static final String[] WAITS = {"com.ibm.disni.RdmaServerEndpoint.accept",
        "com.ibm.disni.verbs.RdmaEventChannel.getCmEvent"};
    private static final long WATCH_MS = 120_000;
    private static final long POLL_MS = 10;

    private ExampleMain() {
    }

    public static void main(String[] args) throws Exception {
        int first = args[0].equals(SERVER) ? 1 : 0;
        Method main = Class.forName(args[first]).getMethod("main", String[].class);
        if (first == 1) {
            Thread app = Thread.currentThread();
            Thread watcher = new Thread(() -> watch(app), "example-main-watcher");
            watcher.setDaemon(true);
            watcher.start();
        }
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, first + 1, args.length));
        } catch (InvocationTargetException e) {
            System.err.print("Exception in thread \"main\" ");
            e.getCause().printStackTrace();
            System.exit(1);
        }
    }

    /** Looks at the application's stack until it waits for a connection, at most {@link #WATCH_MS}. */
    private static void watch(Thread app) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WATCH_MS);
        while (app.isAlive() && System.nanoTime() < deadline) {
            for (StackTraceElement frame : app.getStackTrace()) {
                String name = frame.getClassName() + "." + frame.getMethodName();
                for (String wait : WAITS) {
                    if (name.equals(wait)) {
                        System.out.println(READY);
                        return;
                    }
                }
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
