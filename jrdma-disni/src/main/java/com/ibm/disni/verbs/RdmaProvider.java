package com.ibm.disni.verbs;

import java.io.IOException;

/** The source of the connection-manager and verbs implementations: jrdma's, in this library. */
public abstract class RdmaProvider {
    private static RdmaProvider provider;

    /** For the implementation. */
    protected RdmaProvider() {
    }

    /**
     * The process-wide provider.
     *
     * @return jrdma's provider
     * @throws IOException never; declared as DiSNI declares it
     */
    public static synchronized RdmaProvider provider() throws IOException {
        if (provider == null) {
            provider = new JrdmaProvider();
        }
        return provider;
    }

    /**
     * The connection manager.
     *
     * @return the process-wide connection manager
     * @throws IOException if jrdma cannot be opened
     */
    public abstract RdmaCm openCm() throws IOException;

    /**
     * The verbs.
     *
     * @return the process-wide verbs
     * @throws IOException if jrdma cannot be opened
     */
    public abstract RdmaVerbs openVerbs() throws IOException;

    /**
     * The version of the implementation's interface.
     *
     * @return libdisni's JNI version number that DiSNI 2.1 expects (32)
     */
    public abstract int getVersion();
}
