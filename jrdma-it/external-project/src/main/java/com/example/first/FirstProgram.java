package com.example.first;

import io.jrdma.cm.RdmaCm;
import io.jrdma.endpoint.Endpoint;
import io.jrdma.endpoint.EndpointListener;
import io.jrdma.endpoint.Message;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * jrdma's first program, built outside jrdma's tree against its installed artifacts: one message
 * from a client endpoint to a server endpoint over siw0. Prints where it ran (its module, or the
 * class path) and what the server received.
 */
public final class FirstProgram {
    private FirstProgram() {
    }

    /** Runs the program on {@code args[0]} (default {@code siw0}). */
    public static void main(String[] args) {
        Module m = FirstProgram.class.getModule();
        System.out.println("running in " + (m.isNamed() ? "module " + m.getName() : "the unnamed module"));
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
