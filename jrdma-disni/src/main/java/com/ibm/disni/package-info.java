/**
 * DiSNI's endpoints on jrdma: socket-like {@link com.ibm.disni.RdmaEndpoint}s made by a group
 * ({@link com.ibm.disni.RdmaActiveEndpointGroup} delivers completions to the endpoints from a CQ thread,
 * {@link com.ibm.disni.RdmaPassiveEndpointGroup} leaves the CQ to the application), and
 * {@link com.ibm.disni.RdmaServerEndpoint}s that accept them.
 */
package com.ibm.disni;
