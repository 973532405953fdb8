package io.jrdma.tools.perftest;

import java.time.Duration;

import io.jrdma.tools.perf.TestInfo.Verb;

/**
 * What a {@link DataPath} is set up with: the test and side, the QPs' count, type and depths, the
 * buffer's geometry, and the options that change what the loops post.
 *
 * @param test the test
 * @param verb the test's verb
 * @param server whether this is the passive side
 * @param numQps the data QPs ({@code -q})
 * @param ud whether the QPs are UD
 * @param events whether completions are waited for on a completion channel ({@code -e})
 * @param txDepth the TX depth: messages outstanding per QP
 * @param rxDepth the RX depth: receives posted per QP
 * @param inlineSize the largest message sent inline
 * @param credits whether SEND flow control runs on RDMA WRITTEN credits (iWARP, no RNR)
 * @param cycleBuffer the cycle buffer consecutive messages walk through (the page size)
 * @param cacheLine the cache line, the step between messages
 * @param region the bytes of one QP's send (or receive) region
 * @param timeout how long the peer may stay silent
 * @param compareAndSwap whether the atomic test uses compare-and-swap instead of fetch-and-add
 * @param postList requests per post ({@code -l})
 */
record PathConfig(PerfTest test, Verb verb, boolean server, int numQps, boolean ud, boolean events, int txDepth,
        int rxDepth, int inlineSize, boolean credits, int cycleBuffer, int cacheLine, int region, Duration timeout,
        boolean compareAndSwap, int postList) {
}
