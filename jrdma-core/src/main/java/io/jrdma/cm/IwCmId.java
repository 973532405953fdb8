package io.jrdma.cm;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpState;
import java.net.InetSocketAddress;

/**
 * An iWARP CM id ({@code struct iw_cm_id}, include/rdma/iw_cm.h): the layer rdma_cm uses on iWARP,
 * usable directly. Create one with {@link RdmaCm#createIwId}.
 *
 * <p>The contract of {@link #accept}: the id passed is the one the CONNECT_REQUEST event provided;
 * later events for the connection go to that id and may arrive before accept returns; if accept
 * fails, no event is ever delivered to that id.
 */
public interface IwCmId {
    /** The user context. Linux: {@code iw_cm_id.context}. */
    Object context();

    /** The local address (set it before {@link #listen} or {@link #connect}). Linux: {@code iw_cm_id.local_addr}. */
    InetSocketAddress localAddress();

    /** Sets the local address (port 0 = ephemeral on connect). Linux: {@code iw_cm_id.local_addr}. */
    void localAddress(InetSocketAddress address);

    /** The remote address. Linux: {@code iw_cm_id.remote_addr}. */
    InetSocketAddress remoteAddress();

    /** Sets the remote address for {@link #connect}. Linux: {@code iw_cm_id.remote_addr}. */
    void remoteAddress(InetSocketAddress address);

    /** {@code iw_cm_listen}. */
    void listen(int backlog);

    /** {@code iw_cm_connect}: CONNECT_REPLY follows. */
    void connect(IwConnParam param);

    /** {@code iw_cm_accept}: answers CONNECT_REQUEST on the id the event provided. */
    void accept(IwConnParam param);

    /** {@code iw_cm_reject}: an MPA reject with private data. */
    void reject(byte[] privateData);

    /** {@code iw_cm_disconnect}: graceful (TCP close after the QP drains) or abrupt (reset). */
    void disconnect(boolean abrupt);

    /** {@code iw_cm_init_qp_attr}. */
    QpAttr initQpAttr(QpState state);

    /** {@code iw_destroy_cm_id}. */
    void destroy();
}
