/**
 * DiSNI's verbs layer on jrdma: the RDMA connection manager ({@link com.ibm.disni.verbs.RdmaCmId},
 * {@link com.ibm.disni.verbs.RdmaEventChannel}), the verbs objects ({@link com.ibm.disni.verbs.IbvContext} to
 * {@link com.ibm.disni.verbs.IbvQP}) and the stateful verb calls ({@link com.ibm.disni.verbs.SVCPostSend} and its
 * siblings), with DiSNI 2.1's names, signatures and libibverbs' numeric codes. Every object is backed by jrdma's
 * public API ({@code io.jrdma.verbs}, {@code io.jrdma.cm}); nothing here is native.
 */
package com.ibm.disni.verbs;
