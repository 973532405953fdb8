package io.jrdma.examples;

import io.jrdma.cm.RdmaCm;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.Message;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The first program: a server and a client endpoint in one JVM, one SEND from the client received
 * by the server, over {@code siw0} (iWARP over TCP on 127.0.0.1) or any device named on the command
 * line. README's "First program" section shows {@link #run}; the build runs it.
 *
 * <pre>
 * usage: FirstProgram [device]
 * </pre>
 */
public final class FirstProgram {
    private FirstProgram() {
    }

    /** Runs {@link #run} on {@code args[0]} (default {@code siw0}) and prints what the server received. */
    public static void main(String[] args) {
        System.out.println("server received: " + run(args.length > 0 ? args[0] : "siw0"));
    }

    // tag::first[]
    /** Connects a client to a server over {@code device}, sends one message; returns what the server got. */
    public static String run(String device) {
        Duration timeout = Duration.ofSeconds(10);
        try (RdmaCm cm = RdmaCm.open(device);
                EndpointListener listener = EndpointListener.listen(cm, new InetSocketAddress("127.0.0.1", 0));
                Endpoint client = Endpoint.connect(cm, listener.localAddress());
                Endpoint server = listener.accept(timeout)) {
            client.send("hello over RDMA".getBytes(StandardCharsets.UTF_8));
            try (Message message = server.receive(timeout)) {
                return message.text();
            }
        }
    }
    // end::first[]
}
