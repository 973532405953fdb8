/**
 * Endpoints: connections that are ready to use, built on the verbs ({@code io.jrdma.verbs}) and the
 * connection manager ({@code io.jrdma.cm}) and on nothing else. An {@link io.jrdma.endpoint.Endpoint}
 * is a connected RC queue pair with its protection domain, completions and registered message
 * buffers; {@link io.jrdma.endpoint.Endpoint#connect} returns one connected (or
 * {@link io.jrdma.endpoint.Endpoint#connectAsync} a future of one), and an
 * {@link io.jrdma.endpoint.EndpointListener} accepts them. Messages are received by
 * {@link io.jrdma.endpoint.Endpoint#receive} (blocking, bounded) or
 * {@link io.jrdma.endpoint.Endpoint#poll}, or by a {@link io.jrdma.endpoint.MessageHandler}; the
 * completions behind them are an endpoint's own, delivered by a thread of its own, or shared by several
 * endpoints in a {@link io.jrdma.endpoint.CompletionGroup}, delivered by the group's thread or by the
 * application's calls to {@link io.jrdma.endpoint.CompletionGroup#poll()}.
 *
 * <pre>{@code
 * try (RdmaCm cm = RdmaCm.open("siw0");
 *      EndpointListener listener = EndpointListener.listen(cm, new InetSocketAddress("127.0.0.1", 0));
 *      Endpoint client = Endpoint.connect(cm, listener.localAddress());
 *      Endpoint server = listener.accept(Duration.ofSeconds(10))) {
 *     client.send("hello".getBytes());
 *     try (Message m = server.receive(Duration.ofSeconds(10))) {
 *         System.out.println(m.text());
 *     }
 * }
 * }</pre>
 *
 * <h2>Closing, in any order</h2>
 * Every type here is {@link java.lang.AutoCloseable}, every {@code close()} is idempotent, and the rule
 * for a parent closed while children are open is: <b>the parent closes its children first</b>.
 * <ul>
 *   <li>{@link io.jrdma.cm.RdmaCm#close()} closes the listeners, endpoints and completion queues built
 *       on it (they tie themselves to it with {@link io.jrdma.cm.RdmaCm#addDependent}), newest first,
 *       then its ids and contexts;</li>
 *   <li>{@link io.jrdma.endpoint.CompletionGroup#close()} closes the endpoints using it;</li>
 *   <li>{@link io.jrdma.endpoint.Endpoint#close()} frees its QP, buffers, the regions registered with
 *       it, its protection domain and CM id, and makes its messages unusable;</li>
 *   <li>{@link io.jrdma.endpoint.EndpointListener#close()} closes the endpoints nobody took yet; the
 *       ones already accepted are the caller's and stay open, as sockets outlive their listen socket.</li>
 * </ul>
 * A child closed after its parent has nothing left to free and returns quietly, so try-with-resources
 * is correct whatever the order of the declarations, and so is closing by hand in any order. (The
 * verbs underneath keep Linux's rule instead: closing a protection domain, CQ, SRQ or completion channel
 * that is still in use fails with EBUSY and a message naming what still uses it and how many.)
 *
 * <h2>Threads</h2>
 * {@code Endpoint}, {@code EndpointListener} and {@code CompletionGroup} are thread-safe;
 * {@code EndpointOptions} is immutable; a {@link io.jrdma.endpoint.Message} is not thread-safe (one
 * thread at a time). Completions are delivered on the group's thread — a virtual thread per device
 * context — or on the thread that calls {@code poll()}; handlers run there, one at a time per group and
 * device. Connecting asynchronously and accepting run on virtual threads.
 *
 * <h2>Memory</h2>
 * An endpoint's message buffers are native memory of a shared arena of its own, registered once and
 * freed when it closes; {@code send} copies into them and a {@code Message} is a view of one. Memory a
 * program registers for one-sided operations ({@link io.jrdma.endpoint.Endpoint#register}) follows the
 * rules of {@link io.jrdma.verbs.ProtectionDomain#registerMemory}: it must stay reachable by jrdma's
 * threads (not a confined arena) until the region is closed.
 */
package io.jrdma.endpoint;
