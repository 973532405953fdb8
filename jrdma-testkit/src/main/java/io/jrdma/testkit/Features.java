package io.jrdma.testkit;

/**
 * What a provider's transport can do, so that {@link VerbsConformanceSuite} skips (with JUnit
 * {@code Assumptions}) the tests of what it lacks. siw, for instance, is RC only, without immediate
 * data, atomics or RNR (iWARP has no RNR NAK), and a vanished peer shows up as a TCP reset rather
 * than as transport retries running out.
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
 * @param maxInline the largest inline payload a QP can be created with
 */
public record Features(boolean uc, boolean ud, boolean srq, boolean atomics, boolean immediateData,
        boolean sendWithInvalidate, boolean localInvalidate, boolean rnrRetry, boolean transportRetry,
        boolean responderAsyncEvents, int maxInline) {

    /** Rejects a negative inline size. */
    public Features {
        if (maxInline < 0) {
            throw new IllegalArgumentException("maxInline must not be negative: " + maxInline);
        }
    }

    /** Everything an IB-transport provider (loop, rxe) offers, with {@code maxInline} inline bytes. */
    public static Features ibTransport(int maxInline) {
        return new Features(true, true, true, true, true, true, true, true, true, true, maxInline);
    }

    /** What an iWARP (siw) provider offers: RC only, no immediate data, no atomics, no RNR. */
    public static Features iwarp(int maxInline) {
        return new Features(false, false, true, false, false, true, true, false, false, true, maxInline);
    }
}
