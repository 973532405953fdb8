package io.jrdma.testkit;

/**
 * What a provider's transport can do, so that {@link VerbsConformanceSuite} skips (with JUnit
 * {@code Assumptions}) the tests of what it lacks and, where IB and iWARP define the same situation
 * differently, checks the transport's own outcome. siw, for instance, is RC only, without immediate
 * data, atomics or RNR (iWARP has no RNR NAK), and a vanished peer shows up as a TCP reset rather
 * than as transport retries running out.
 *
 * <p>The iWARP outcomes the suite expects when {@link #ackedRequests()} is false are Linux siw's
 * ({@code drivers/infiniband/sw/siw}, checked against a 6.1 kernel): an RDMA WRITE or SEND completes
 * successfully once it is handed to TCP, because RDMAP (RFC 5040) has no acknowledgement; a
 * responder that refuses it sends a TERMINATE and closes the connection, so the requester QP goes to
 * ERR and its later work is flushed (or completes, if it was sent before the TERMINATE arrived); an
 * RDMA READ the responder refuses completes with REM_ACCESS_ERR (siw: WR_FLUSH_ERR; jrdma's siw
 * reports the error it learns from the TERMINATE). The responder raises siw's events: QP_ACCESS_ERR
 * for a refused RDMA WRITE or a receive without local write, QP_REQ_ERR for a refused RDMA READ (siw
 * finds it while building the response), QP_FATAL for a SEND that does not fit.
 *
 * @param uc unreliable connected QPs
 * @param ud unreliable datagram QPs
 * @param srq shared receive queues
 * @param atomics compare-and-swap and fetch-and-add
 * @param immediateData SEND_WITH_IMM and RDMA_WRITE_WITH_IMM
 * @param sendWithInvalidate SEND_WITH_INV
 * @param localInvalidate LOCAL_INV
 * @param rnrRetry the responder answers a missing receive with an RNR NAK and the requester retries
 *     after the minimum RNR timer, up to rnr_retry times (IBTA 9.7.5.2.8)
 * @param transportRetry a requester whose peer stops answering retries after the local ACK timeout,
 *     up to retry_cnt times, then completes with RETRY_EXC_ERR (IBTA 9.7.6.1.3)
 * @param responderAsyncEvents a responder QP that detects a remote access violation or an invalid
 *     request reports QP_ACCESS_ERR / QP_REQ_ERR as an affiliated asynchronous event (IBTA 11.6.3;
 *     Linux rxe does not, siw does)
 * @param ibAttributeMasks {@code ibv_modify_qp} checks the IBTA attribute mask of every transition
 *     (IBTA 11.2.4.2, Table 91: required and allowed attributes); iWARP QPs take their path from the
 *     connection ({@code iw_cm_init_qp_attr} gives only access flags), so siw checks only that the
 *     transition is legal
 * @param ackedRequests the responder acknowledges every request (IB RC ACK/NAK), so a SEND or RDMA
 *     WRITE completes only once the responder accepted it and a refusal is the requester's completion
 *     status; without it (iWARP) see the class comment
 * @param localErrorsCloseConnection a local error on one QP also ends its peer: iWARP sends a
 *     TERMINATE and closes the TCP connection, so the peer QP goes to ERR and flushes; on IB the peer QP
 *     is not affected
 * @param zeroIrdRefusesReads a QP connected with responder resources (IRD) 0 refuses RDMA READs (IB:
 *     NAK invalid request); siw's relaxed IRD negotiation raises a responder's IRD to the initiator's
 *     ORD, so an iWARP QP cannot be made to refuse them this way
 * @param sendQueueErrorState a UC or UD QP whose send fails goes to SQE and keeps receiving (IBTA
 *     10.3.1); Linux rxe moves the whole QP to ERR instead (its completer's error path calls
 *     {@code rxe_qp_error}), so there is no SQE to start from
 * @param heapMemory regions may be heap memory ({@code MemorySegment.ofArray}); a kernel device reaches
 *     memory by address and its provider refuses heap segments, which the garbage collector moves
 * @param maxInline the largest inline payload a QP can be created with
 * @param modifyToRts a QP reaches RTS (and from there SQD) through {@code ibv_modify_qp} alone, without a
 *     connection: true of IB devices and of jrdma's software devices; a kernel iWARP QP reaches RTS only
 *     when the iWARP connection manager has connected it (Linux siw refuses RTS from user space with EINVAL:
 *     the transition needs the connection's socket, which only the kernel's CM hands over), so the tests
 *     that take a standalone QP to RTS are skipped there
 * @param resetRefusesReceives posting a receive to a QP in RESET is refused (IBTA 11.4.1.2); libsiw
 *     writes receives into the queue it shares with the kernel in any state, so programs may post them
 *     before the QP leaves RESET
 * @param gidIsAddress GID 0 is an IP address the device serves (IPv4-mapped or an IPv6 address); Linux siw
 *     makes its GID of the netdev's MAC address followed by zeros, since an iWARP peer is addressed by IP
 *     through the CM, not by GID
 * @param receiveLengthErrors a message longer than the receive that takes it is a length error (IBTA 9.9.3,
 *     10.8.3): on RC LOC_LEN_ERR at the responder and an invalid-request NAK; on UD the datagram is dropped and
 *     the receive stays posted, or with an SRQ it completes with REM_INV_REQ_ERR. Linux 6.1 rxe's
 *     {@code copy_data} returns EINVAL rather than ENOSPC for a receive too short, which its responder treats as
 *     a malformed WQE (class A, {@code rxe_resp.c}): the receive completes with LOC_QP_OP_ERR (after the GRH of a
 *     datagram is written), an RC requester gets a remote-operation NAK (REM_OP_ERR), and the QP goes to ERR
 * @param drainFinishesStartedSends a QP moved to SQD completes the SENDs it has started, also one waiting in RNR
 *     retries, before it raises SQ_DRAINED and holds only the WRs it had not started (IBTA 10.3.1, SQ Drain). Linux
 *     6.1 rxe counts a WR it retries as not started ({@code req_retry} marks it posted again): at the first retry
 *     after the RNR timer the queue counts as drained, SQ_DRAINED is raised and the SEND stays queued; back in
 *     RTS the queued WRs wait for the next post, as the move to RTS does not wake rxe's requester
 *     ({@code rxe_qp_from_attr})
 * @param misalignedAtomicsReachResponder an atomic whose remote address is not 8-byte aligned is posted and the
 *     responder refuses it (IBTA 9.4.5: NAK invalid request, REM_INV_REQ_ERR); rdma-core's rxe provider refuses it
 *     at the post already (EINVAL), so it is never sent
 * @param ucAddressChangeInSqd a UC QP in SQD takes a new address vector (IBTA 11.2.4.2, Table 91: AV is optional
 *     for UC SQD→SQD). Linux's uverbs adds the port to an SQD→SQD modify that changes the AV
 *     ({@code modify_qp} in {@code uverbs_cmd.c}), and the port is not an attribute a UC QP may change there, so
 *     the kernel refuses it with EINVAL on every device reached through libibverbs
 */
public record Features(boolean uc, boolean ud, boolean srq, boolean atomics, boolean immediateData,
        boolean sendWithInvalidate, boolean localInvalidate, boolean rnrRetry, boolean transportRetry,
        boolean responderAsyncEvents, boolean ibAttributeMasks, boolean ackedRequests,
        boolean localErrorsCloseConnection, boolean zeroIrdRefusesReads, boolean sendQueueErrorState,
        boolean heapMemory, int maxInline, boolean modifyToRts, boolean resetRefusesReceives,
        boolean gidIsAddress, boolean receiveLengthErrors, boolean drainFinishesStartedSends,
        boolean misalignedAtomicsReachResponder, boolean ucAddressChangeInSqd) {

    /** The same features with {@link #sendQueueErrorState} and {@link #heapMemory} as given. */
    public Features with(boolean sqe, boolean heap) {
        return new Features(uc, ud, srq, atomics, immediateData, sendWithInvalidate, localInvalidate, rnrRetry,
                transportRetry, responderAsyncEvents, ibAttributeMasks, ackedRequests, localErrorsCloseConnection,
                zeroIrdRefusesReads, sqe, heap, maxInline, modifyToRts, resetRefusesReceives,
                gidIsAddress, receiveLengthErrors, drainFinishesStartedSends, misalignedAtomicsReachResponder,
                ucAddressChangeInSqd);
    }

    /**
     * The same features as a kernel iWARP device has them through libibverbs: {@link #modifyToRts} and
     * {@link #resetRefusesReceives} false (a QP reaches RTS only through the CM; libsiw takes receives in
     * any state), and {@link #gidIsAddress} false (siw's GID is its MAC address).
     */
    public Features kernelIwarp() {
        return new Features(uc, ud, srq, atomics, immediateData, sendWithInvalidate, localInvalidate, rnrRetry,
                transportRetry, responderAsyncEvents, ibAttributeMasks, ackedRequests, localErrorsCloseConnection,
                zeroIrdRefusesReads, sendQueueErrorState, heapMemory, maxInline, false, false, false,
                receiveLengthErrors, drainFinishesStartedSends, misalignedAtomicsReachResponder,
                ucAddressChangeInSqd);
    }

    /**
     * The same features as a kernel IB or RoCE device has them through libibverbs: {@link #ucAddressChangeInSqd}
     * false (Linux uverbs), and for Linux rxe ({@code linuxRxe}) {@link #receiveLengthErrors},
     * {@link #drainFinishesStartedSends} and {@link #misalignedAtomicsReachResponder} false as well.
     */
    public Features kernelIb(boolean linuxRxe) {
        return new Features(uc, ud, srq, atomics, immediateData, sendWithInvalidate, localInvalidate, rnrRetry,
                transportRetry, responderAsyncEvents, ibAttributeMasks, ackedRequests, localErrorsCloseConnection,
                zeroIrdRefusesReads, sendQueueErrorState, heapMemory, maxInline, modifyToRts, resetRefusesReceives,
                gidIsAddress, receiveLengthErrors && !linuxRxe, drainFinishesStartedSends && !linuxRxe,
                misalignedAtomicsReachResponder && !linuxRxe, false);
    }

    /** Rejects a negative inline size. */
    public Features {
        if (maxInline < 0) {
            throw new IllegalArgumentException("maxInline must not be negative: " + maxInline);
        }
    }

    /** Everything an IB-transport provider (loop, rxe) offers, with {@code maxInline} inline bytes. */
    public static Features ibTransport(int maxInline) {
        return new Features(true, true, true, true, true, true, true, true, true, true, true, true, false, true,
                true, true, maxInline, true, true, true, true, true, true, true);
    }

    /**
     * What an iWARP (siw) provider offers: RC only, no immediate data, no atomics, no RNR, no IB attribute
     * masks, completion on transmission, connection-wide errors, relaxed IRD negotiation.
     */
    public static Features iwarp(int maxInline) {
        return new Features(false, false, true, false, false, true, true, false, false, true, false, false, true,
                false, true, true, maxInline, true, true, true, true, true, true, true);
    }
}
