package io.jrdma.testkit.cm;

import io.jrdma.cm.PortSpace;
import io.jrdma.internal.cm.ib.CmaHeader;
import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.verbs.Unpredictable;
import io.jrdma.spi.ibcm.CmPath;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Req;
import io.jrdma.verbs.Gid;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A REQ as rdma_cm sends it ({@code cma_connect_ib}: RC, CM response timeout 20, 15 retries, retry and RNR
 * retry 7, depths 1, the rdma_cm header in the private data) from a raw {@link IbCmPeer} to a listener on
 * {@code server}:{@code port} in the TCP port space; a test changes what it needs before {@link #send}. Its
 * comm id is random, its CA GUID follows the peer's address (as rxe's follows the MAC), and its transaction
 * id is fixed, so sending it again is a duplicate.
 */
public final class RawReq {
    /** rdma_cm's CM response timeout ({@code CMA_CM_RESPONSE_TIMEOUT}). */
    static final int CM_RESPONSE_TIMEOUT = 20;
    private static final AtomicLong TIDS = new AtomicLong(0x7E57_0000_0000_0000L);

    final IbCmPeer peer;
    final InetAddress server;
    final long tid = nextTid();
    int commId = Unpredictable.nextInt() | 1;
    long serviceId;
    long guid;
    int qpn = 0x4321;
    int psn = 0x1234;
    int transport = Req.TRANSPORT_RC;
    int extendedTransport;
    int responderResources = 1;
    int initiatorDepth = 1;
    int retryCount = 7;
    int rnrRetryCount = 7;
    int pathMtu;
    int localAckTimeout = 19;
    int localCmResponseTimeout = CM_RESPONSE_TIMEOUT;
    int remoteCmResponseTimeout = CM_RESPONSE_TIMEOUT;
    int maxCmRetries = IbCm.MAX_CM_RETRIES;
    int partitionKey = 0xFFFF;
    int flowLabel;
    int trafficClass;
    int hopLimit = 64;
    int sl;
    Octets privateData;

    /**
     * A REQ from {@code peer} for the listener on {@code server}:{@code port}.
     *
     * @param peer the raw peer that sends it
     * @param server the listener's address (the rdma_cm header's destination)
     * @param port the listener's port
     * @param pathMtu the IBTA MTU code of the path (1 = 256 .. 5 = 4096)
     */
    public RawReq(IbCmPeer peer, InetAddress server, int port, int pathMtu) {
        this.peer = peer;
        this.server = server;
        this.serviceId = PortSpace.TCP.serviceId(port);
        this.pathMtu = pathMtu;
        this.guid = 0x0200_5EFF_FE00_0000L | (peer.address().getAddress()[3] & 0xFF);
        this.privateData = CmaHeader.of(peer.address(), 0xC001, server).prependTo(new byte[0],
                Req.PRIVATE_DATA_LIMIT);
    }

    /** A transaction id of its own for a message a test sends. */
    static long nextTid() {
        return TIDS.incrementAndGet();
    }

    /**
     * The REQ's comm id.
     *
     * @return the sender's local communication id
     */
    public int commId() {
        return commId;
    }

    /**
     * Sets the responder resources and initiator depth the REQ asks for (8 bits each on the wire).
     *
     * @param responder responder resources
     * @param initiator initiator depth
     * @return this
     */
    public RawReq depths(int responder, int initiator) {
        this.responderResources = responder;
        this.initiatorDepth = initiator;
        return this;
    }

    /**
     * Sets how the REQ's sender times itself: its CM response timeout, the local ACK timeout of its path
     * (the packet life time + 1) and how many times the answer is to be retried.
     *
     * @param cmResponseTimeout IB time, 5 bits
     * @param ackTimeout IB time, 5 bits
     * @param cmRetries 4 bits
     * @return this
     */
    public RawReq timeouts(int cmResponseTimeout, int ackTimeout, int cmRetries) {
        this.localCmResponseTimeout = cmResponseTimeout;
        this.localAckTimeout = ackTimeout;
        this.maxCmRetries = cmRetries;
        return this;
    }

    /**
     * Sets the path MTU code.
     *
     * @param code 4 bits on the wire
     * @return this
     */
    public RawReq pathMtu(int code) {
        this.pathMtu = code;
        return this;
    }

    /**
     * The message.
     *
     * @return the REQ
     */
    public Req build() {
        CmPath path = new CmPath(0xFFFF, 0xFFFF, Gid.of(peer.address()), Gid.of(server), flowLabel, 0, trafficClass,
                hopLimit, sl, false, localAckTimeout);
        return new Req(commId, 0, serviceId, guid, 0, qpn, responderResources, 0, initiatorDepth, 0,
                remoteCmResponseTimeout, transport, false, psn, localCmResponseTimeout, retryCount, partitionKey,
                pathMtu, false, rnrRetryCount, maxCmRetries, false, extendedTransport, path, CmPath.NONE, false, 0,
                privateData);
    }

    /** Sends the REQ (again: the same transaction id and comm id). */
    public void send() {
        peer.send(tid, build());
    }
}
