/**
 * The connection manager: Linux {@code cma.c} ({@link io.jrdma.internal.cm.CmIdImpl} and its parts) over
 * two backends, the IB CM for IB and RoCE ({@link io.jrdma.internal.cm.IbCmaBackend}, the protocol in
 * {@code ib}) and the iWARP CM ({@link io.jrdma.internal.cm.IwCmaBackend} over
 * {@link io.jrdma.internal.cm.IwCmIdImpl}).
 *
 * <h2>The parts of an id</h2>
 * {@code CmIdImpl} holds what an id is as a {@code CmIdState} — port space, QP type, state, device,
 * addresses, route, what the connection {@link io.jrdma.internal.cm.Negotiated negotiated}, the backend's
 * connection state. Each concern of rdma_cm is a package-private part of the id, as cma.c has a section
 * for each: {@code CmOptions} ({@code rdma_set_option}), {@code CmAddressing} (bind, the port table,
 * address and route resolution), {@code CmListen} (listen, the backlog, the requests it brings,
 * {@code getRequest}), {@code CmConnect} (connect, disconnect, notify), {@code CmAccept} (accept and
 * reject, the handler-context rules), {@code CmQp} (the QP and the transitions the CM drives),
 * {@code CmDelivery} (events and the handler lock), {@code CmMulticast} and {@code CmTeardown} (destroy
 * and device removal); {@code CmForeign} serves an id a whole-device provider's connection manager has
 * taken. A part holds the fields of its concern; it reaches the others only through the id. An id, its
 * parts and its event channel see the connection manager that holds them as a
 * {@link io.jrdma.internal.cm.CmHost} ({@code CmCore} is the one), never as the public {@code RdmaCm}: the
 * public class depends on this package, not the reverse.
 *
 * <h2>One lock per id</h2>
 * An id's state — its {@code CmState}, the fields that go with it (addresses, port, options, backlog
 * bookkeeping, multicast list, the negotiated values) — is read-modify-written only under one lock: the
 * id's monitor ({@code synchronized (id)}), which every part takes, never another. The lock is held for
 * the check and the change, and for the backend calls that only register or drop a listener or a group
 * (listen, stopListen, joinMulticast: no wire exchange, no call back into the id). It is never held
 * while a connection message is sent, a QP is driven, or a user handler runs, so a backend thread that
 * holds its own lock (the IB CM's) may take it at any time. Single values read alone are volatile.
 *
 * <p>Why a lock and not a per-id serial executor: the API is synchronous (bind, resolve, connect and
 * accept return their errors to the caller, in the caller's thread, as librdmacm's calls do), the
 * backends call into the id from their own threads (the IB CM under its lock, the iWARP CM on a
 * connection's thread), and a short critical section per transition is what {@code cma_comp_exch} is.
 * An executor would turn each call into a hand-off and a wait, and a backend callback into a queued task
 * whose order with the user's calls is lost. Why the monitor: it is reentrant (a part holding it may call
 * another that takes it) and, on this JDK, a virtual thread blocked on it is not pinned.
 *
 * <p>The handler lock ({@code CmDelivery}, cma.c's {@code handler_mutex}, {@code rdma_lock_handler}) is
 * not a lock on state: it orders event delivery with the calls a handler makes (accept, reject,
 * connectLocked) and with destroy, so that no event is delivered after {@code destroy} returns. It is
 * taken before the id's monitor, never after, and is held while a user handler runs. cma.c changes state
 * under either of its two locks ("funny double locking"); here the handler lock never guards a change.
 */
package io.jrdma.internal.cm;
