/**
 * The kernel's RDMA devices through rdma-core's {@code libibverbs.so.1}, called with the FFM API: the
 * {@link io.jrdma.kernel.NativeProvider} makes every device {@code ibv_get_device_list} finds a jrdma
 * {@link io.jrdma.verbs.Device} named {@code native:NAME}. Programs use the ordinary {@code io.jrdma.verbs}
 * API; nothing here needs to be called directly.
 */
package io.jrdma.kernel;
