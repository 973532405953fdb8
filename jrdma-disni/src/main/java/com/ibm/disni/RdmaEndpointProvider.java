package com.ibm.disni;

import java.io.IOException;
import java.util.HashMap;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;

/** Hands out one protection domain per device context, shared by every group of the process. */
public class RdmaEndpointProvider {
    private static RdmaEndpointProvider provider;

    protected HashMap<Integer, IbvPd> pdMap = new HashMap<>();

    private RdmaEndpointProvider() {
    }

    /**
     * The process-wide provider.
     *
     * @return the provider
     * @throws IOException never; declared as DiSNI declares it
     */
    public static synchronized RdmaEndpointProvider getEndpointProvider() throws IOException {
        if (provider == null) {
            provider = new RdmaEndpointProvider();
        }
        return provider;
    }

    /**
     * The domain of the endpoint's device.
     *
     * @param endpoint an endpoint with a resolved address
     * @return the domain
     * @throws IOException if the endpoint has no device yet
     */
    public synchronized IbvPd createProtectionDomain(RdmaEndpoint endpoint) throws IOException {
        return createProtectionDomain(endpoint.getIdPriv().getVerbs());
    }

    /**
     * The domain of the server endpoint's device.
     *
     * @param endpoint a server endpoint bound to a device address
     * @return the domain
     * @throws IOException if the endpoint has no device (bound to a wildcard address)
     */
    public synchronized IbvPd createProtectionDomain(RdmaServerEndpoint<?> endpoint) throws IOException {
        return createProtectionDomain(endpoint.getIdPriv().getVerbs());
    }

    /**
     * The domain of {@code context}, allocated on first use.
     *
     * @param context the device context
     * @return the domain
     * @throws IOException if {@code context} is null (the id is not bound to a device)
     */
    public synchronized IbvPd createProtectionDomain(IbvContext context) throws IOException {
        if (context == null) {
            throw new IOException("setting up protection domain, no context found (the id is not bound to a device;"
                    + " bind a server endpoint to an address of an RDMA device)");
        }
        IbvPd pd = pdMap.get(context.getCmd_fd());
        if (pd == null) {
            pd = context.allocPd();
            pdMap.put(context.getCmd_fd(), pd);
        }
        return pd;
    }
}
