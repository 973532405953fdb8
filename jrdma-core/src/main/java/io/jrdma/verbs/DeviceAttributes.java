package io.jrdma.verbs;

/**
 * Device capabilities ({@code struct ibv_device_attr}, as {@code ibv_query_device} returns them).
 * The limits are enforced: creating a resource beyond one is a clear error.
 *
 * @param fwVer firmware version string
 * @param nodeGuid node GUID
 * @param sysImageGuid system image GUID
 * @param maxMrSize largest memory region in bytes
 * @param vendorId vendor id
 * @param vendorPartId vendor part id
 * @param maxQp most queue pairs
 * @param maxQpWr most outstanding work requests on any work queue
 * @param maxSge most scatter/gather entries per send or receive WR
 * @param maxSgeRd most gather entries for an RDMA READ sink
 * @param maxCq most completion queues
 * @param maxCqe most entries per completion queue
 * @param maxMr most memory regions
 * @param maxPd most protection domains
 * @param maxQpRdAtom most outstanding RDMA READs/atomics a QP may receive (IRD)
 * @param maxQpInitRdAtom most outstanding RDMA READs/atomics a QP may issue (ORD)
 * @param atomicCap atomic support
 * @param maxSrq most shared receive queues
 * @param maxSrqWr most WRs per SRQ
 * @param maxSrqSge most SGEs per SRQ WR
 * @param maxAh most address handles
 * @param maxInlineData most inline bytes per send WR (jrdma's addition; libibverbs reports it per QP)
 * @param physPortCnt number of ports
 * @param maxMcastGrp most multicast groups a QP may be attached to on the device (0: no multicast)
 * @param maxMcastQpAttach most QPs attached to one multicast group
 * @param maxTotalMcastQpAttach most QP attachments to multicast groups on the device
 */
public record DeviceAttributes(String fwVer, long nodeGuid, long sysImageGuid, long maxMrSize, int vendorId,
        int vendorPartId, int maxQp, int maxQpWr, int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxMr,
        int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, AtomicCap atomicCap, int maxSrq, int maxSrqWr,
        int maxSrqSge, int maxAh, int maxInlineData, int physPortCnt, int maxMcastGrp, int maxMcastQpAttach,
        int maxTotalMcastQpAttach) {
    /**
     * The attributes of a device without multicast ({@code max_mcast_grp} 0, as siw reports it). Linux:
     * {@code struct ibv_device_attr} with the three multicast limits 0.
     */
    public DeviceAttributes(String fwVer, long nodeGuid, long sysImageGuid, long maxMrSize, int vendorId,
            int vendorPartId, int maxQp, int maxQpWr, int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxMr,
            int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, AtomicCap atomicCap, int maxSrq, int maxSrqWr,
            int maxSrqSge, int maxAh, int maxInlineData, int physPortCnt) {
        this(fwVer, nodeGuid, sysImageGuid, maxMrSize, vendorId, vendorPartId, maxQp, maxQpWr, maxSge, maxSgeRd,
                maxCq, maxCqe, maxMr, maxPd, maxQpRdAtom, maxQpInitRdAtom, atomicCap, maxSrq, maxSrqWr, maxSrqSge,
                maxAh, maxInlineData, physPortCnt, 0, 0, 0);
    }
}
