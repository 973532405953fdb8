package io.jrdma.internal.cm;

import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;

/**
 * What route resolution settles for a connection: the path record rdma_cm builds on RoCE
 * ({@code cma_resolve_iboe_route}) and uses for the REQ and the QP's address vector.
 *
 * @param sgid local GID
 * @param dgid remote GID
 * @param mtu path MTU
 * @param packetLifeTime IB time exponent of the packet life time (rdma_cm: 18, or ack timeout − 1)
 * @param trafficClass traffic class (from the id's TOS)
 * @param hopLimit hop limit
 * @param flowLabel flow label
 * @param sl service level
 */
public record Route(Gid sgid, Gid dgid, Mtu mtu, int packetLifeTime, int trafficClass, int hopLimit, int flowLabel,
        int sl) {
}
