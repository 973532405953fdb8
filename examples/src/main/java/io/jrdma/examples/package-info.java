/**
 * Runnable jrdma examples, compiled and tested by the build: {@link io.jrdma.examples.RdmaServer}
 * and {@link io.jrdma.examples.RdmaClient}, the twins of librdmacm's rdma_server and rdma_client.
 */
package io.jrdma.examples;
