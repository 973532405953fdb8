package io.jrdma.internal.cm;

import io.jrdma.cm.ConnParam;
import io.jrdma.cm.Ece;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.RdmaException;
import java.net.InetAddress;
import java.time.Duration;

/**
 * The connection-establishment protocol under rdma_cm for one device: the IB CM (REQ/REP/RTU,
 * SIDR) on IB-transport devices, the iWARP CM (MPA over TCP) on iWARP devices — the two halves
 * {@code cma.c} switches between with {@code rdma_cap_ib_cm} and {@code rdma_cap_iw_cm}.
 * Core's rdma_cm calls it after its own checks; the backend reports back through the id's event
 * methods.
 */
public interface CmBackend {
    /** Largest user private data of a connect for the id (REQ 56, SIDR_REQ 180, MPA 252). */
    int maxConnectPrivateData(CmIdImpl id);

    /** Largest user private data of an accept (REP 196, SIDR_REP 136, MPA 252). */
    int maxAcceptPrivateData(CmIdImpl id);

    /** Largest user private data of a reject (REJ 148, SIDR_REP 136, MPA 252). */
    int maxRejectPrivateData(CmIdImpl id);

    /** Starts listening for the id on this device. */
    void listen(CmIdImpl id, int backlog);

    /** Stops listening for the id. */
    void stopListen(CmIdImpl id);

    /** Fills in the route of an address-resolved id. */
    Route resolveRoute(CmIdImpl id);

    /** Starts a connect: REQ or SIDR_REQ, or TCP connect + MPA request. */
    void connect(CmIdImpl id, ConnParam param, Ece ece, Duration timeout);

    /** Passive accept: REP or SIDR_REP, or MPA reply. Throws on failure. */
    void accept(CmIdImpl id, ConnParam param, Ece ece);

    /** Active accept(null) after CONNECT_RESPONSE: the RTU. */
    void establish(CmIdImpl id);

    /** Rejects a connection request (REJ, SIDR_REP with status, MPA reject or close). */
    void reject(CmIdImpl id, byte[] privateData, int reason);

    /** Disconnects (DREQ/DREP, or TCP close). */
    void disconnect(CmIdImpl id);

    /** The QP saw traffic before the RTU: treat the connection as established. */
    void notifyEstablished(CmIdImpl id);

    /** Releases everything the backend holds for the id (the id is being destroyed). */
    void destroy(CmIdImpl id);

    /**
     * The UD parameters of a multicast group the id joins ({@code cma_iboe_join_multicast}: the address
     * vector to the group, QPN 0xFFFFFF, the Q_Key). Throws for what the transport refuses at the call.
     * The default is iWARP's: no multicast (Linux: ENOSYS).
     */
    default UdParam joinMulticast(CmIdImpl id, Gid mgid, InetAddress group) {
        throw new RdmaException(Errno.ENOSYS, "[cm] " + id.deviceImpl().name()
                + " has no multicast (iWARP)");
    }

    /** Whether the device offers this port space (iWARP: TCP only). */
    boolean supports(PortSpace ps);
}
