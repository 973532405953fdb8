package com.ibm.disni.verbs;

import java.io.IOException;

/** jrdma's provider: one connection manager and one verbs object per process. */
final class JrdmaProvider extends RdmaProvider {
    /** The JNI interface version DiSNI 2.1's Java side checks for (libdisni's {@code JVERBS_JNI_VERSION}). */
    static final int VERSION = 32;

    private JrdmaCm cm;
    private JrdmaVerbs verbs;

    @Override
    public synchronized RdmaCm openCm() throws IOException {
        if (cm == null) {
            cm = new JrdmaCm();
        }
        return cm;
    }

    @Override
    public synchronized RdmaVerbs openVerbs() throws IOException {
        if (verbs == null) {
            verbs = new JrdmaVerbs();
        }
        return verbs;
    }

    @Override
    public int getVersion() {
        return VERSION;
    }
}
