package io.jrdma.spi;

import io.jrdma.cm.IwConnParam;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;

/**
 * The iWARP connection hooks of a device (Linux {@code struct iw_cm_verbs}: {@code create_listen},
 * {@code connect}, {@code accept}, {@code reject}). Core's iw_cm layer calls them and receives the
 * outcome through {@link Upcalls}, from any thread. Core delivers each upcall on the calling thread
 * (for siw an engine thread), one at a time per id: a provider makes a connection's upcalls in order
 * and must not hold a lock an upcall's handler could need (the handler only updates the id and
 * queues the rdma_cm event; it may move the QP to RTS or ERROR).
 */
public non-sealed interface IwCmProvider extends CmTransport {
    /**
     * Listens on {@code local} ({@code create_listen}); requests are reported with
     * {@link Upcalls#connectRequest}. Linux: {@code iw_cm_verbs.create_listen}.
     *
     * @throws io.jrdma.verbs.RdmaException EADDRINUSE if the address cannot be bound
     */
    Listener listen(InetSocketAddress local, int backlog, Upcalls upcalls);

    /**
     * As {@link #listen(InetSocketAddress, int, Upcalls)}, for an id that takes its own address family
     * only: with {@code afOnly} an IPv6 listener refuses IPv4 connections at the TCP level ({@code
     * IPV6_V6ONLY}), without it an IPv6 wildcard takes both families. Linux: {@code iw_cm_id.afonly}, set
     * from the rdma_cm id's AFONLY option; siw's {@code ip6_sock_set_v6only}. The default ignores
     * {@code afOnly}.
     *
     * @param local the address to listen on
     * @param backlog the TCP backlog
     * @param afOnly whether an IPv6 listener refuses IPv4
     * @param upcalls where requests are reported
     * @return the listener
     * @throws io.jrdma.verbs.RdmaException EADDRINUSE if the address cannot be bound
     */
    default Listener listen(InetSocketAddress local, int backlog, boolean afOnly, Upcalls upcalls) {
        return listen(local, backlog, upcalls);
    }

    /**
     * Starts an active connection from {@code local} to {@code remote} for {@code qp} with an MPA
     * request carrying {@code param}; returns at once. The outcome is {@link Upcalls#connectReply}
     * (status 0 once the QP is in RTS on the connection, or -ECONNREFUSED for an MPA reject,
     * -ECONNRESET for a reset or a close before the reply, -ETIMEDOUT when the MPA reply timer or the
     * TCP connect expires). The active side gets no {@link Upcalls#established}: the reply is it. Linux:
     * {@code iw_cm_verbs.connect}.
     */
    Connection connect(QueuePair qp, InetSocketAddress local, InetSocketAddress remote, IwConnParam param,
            Upcalls upcalls);

    /** A listening endpoint. */
    interface Listener {
        /** The bound address. Linux: {@code iw_cm_id.local_addr}. */
        InetSocketAddress localAddress();

        /** Stops listening ({@code destroy_listen}); requests not yet reported are refused. */
        void close();
    }

    /** One connection (pending, being set up, or established). */
    interface Connection {
        /** The local address. Linux: {@code iw_cm_id.local_addr}. */
        InetSocketAddress localAddress();

        /** The remote address. Linux: {@code iw_cm_id.remote_addr}. */
        InetSocketAddress remoteAddress();

        /**
         * Routes this connection's later upcalls to {@code upcalls}: core gives every request its own
         * id as soon as it is reported. Until then they go to the listener's upcalls. Linux: the new {@code iw_cm_id}
         * iwcm creates for a request, with its event handler.
         */
        void setUpcalls(Upcalls upcalls);

        /**
         * Accepts a pending request: attaches {@code qp}, sends the MPA reply and reports
         * {@link Upcalls#established} (possibly before this returns). Throws on failure, after which
         * no upcall for the connection follows. Linux: {@code iw_cm_verbs.accept}.
         */
        void accept(QueuePair qp, IwConnParam param);

        /**
         * Rejects a pending request with an MPA reject carrying private data, then closes. Linux:
         * {@code iw_cm_verbs.reject}.
         */
        void reject(byte[] privateData);

        /**
         * Disconnects: graceful (the QP drains, then TCP FIN) or abrupt (TCP reset). Linux: {@code iw_cm_disconnect}
         * (graceful: the QP goes to CLOSING; abrupt: to ERROR).
         */
        void disconnect(boolean abrupt);

        /** Releases the connection without any handshake (the id is destroyed). */
        void close();
    }

    /** Events from the provider to core's iw_cm. */
    interface Upcalls {
        /**
         * A connection request arrived on a listener: the peer's IRD/ORD and private data. Linux:
         * {@code IW_CM_EVENT_CONNECT_REQUEST}.
         */
        void connectRequest(Connection conn, int ird, int ord, byte[] privateData);

        /** The reply to a connect (or its failure). Linux: {@code IW_CM_EVENT_CONNECT_REPLY}. */
        void connectReply(Connection conn, int status, int ird, int ord, byte[] privateData);

        /** The connection is established and the QP is in RTS. Linux: {@code IW_CM_EVENT_ESTABLISHED}. */
        void established(Connection conn);

        /** The peer started an orderly close. Linux: {@code IW_CM_EVENT_DISCONNECT}. */
        void disconnect(Connection conn);

        /** The connection is closed; {@code status} is 0 or a negative errno. Linux: {@code IW_CM_EVENT_CLOSE}. */
        void close(Connection conn, int status);
    }
}
