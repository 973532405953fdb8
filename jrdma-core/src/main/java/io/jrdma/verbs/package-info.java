/**
 * The verbs API: what a libibverbs user expects, in idiomatic Java. Start at
 * {@link io.jrdma.verbs.Rdma#devices()}, open a {@link io.jrdma.verbs.Context}, allocate a
 * {@link io.jrdma.verbs.ProtectionDomain}, register memory, create completion queues and queue
 * pairs, and post work requests. Every type names its libibverbs counterpart.
 */
package io.jrdma.verbs;
