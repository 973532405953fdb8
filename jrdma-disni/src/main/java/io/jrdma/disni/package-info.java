/**
 * What jrdma-disni adds to DiSNI's API: {@link io.jrdma.disni.RdmaConnectException}, the exception a failed
 * {@code RdmaEndpoint.connect} throws, with the connection manager's event, status and the peer's private data.
 */
package io.jrdma.disni;
