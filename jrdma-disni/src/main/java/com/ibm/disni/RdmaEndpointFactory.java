package com.ibm.disni;

import java.io.IOException;

import com.ibm.disni.verbs.RdmaCmId;

/**
 * Makes the application's endpoints for a group.
 *
 * @param <C> the endpoint type
 */
public interface RdmaEndpointFactory<C extends RdmaEndpoint> {
    /**
     * A new endpoint over {@code idPriv}.
     *
     * @param idPriv the connection-manager id
     * @param serverSide whether a server endpoint accepted it
     * @return the endpoint
     * @throws IOException on failure
     */
    C createEndpoint(RdmaCmId idPriv, boolean serverSide) throws IOException;
}
