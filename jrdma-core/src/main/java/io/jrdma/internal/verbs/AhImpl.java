package io.jrdma.internal.verbs;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.ProtectionDomain;

/** An address handle: an immutable address vector owned by a protection domain. */
public final class AhImpl implements AddressHandle {
    private final PdImpl pd;
    private final AhAttr attr;
    private volatile boolean closed;
    /** The destination GID's 16 bytes, kept so the data path never copies them. */
    public final byte[] dgidBytes;
    /** Whether the destination is a multicast group ({@link io.jrdma.verbs.Gid#isMulticast()}). */
    public final boolean multicast;
    /** Provider-resolved destination (e.g. a socket address), cached on first use by the owning engine. */
    public volatile Object resolved;

    AhImpl(PdImpl pd, AhAttr attr) {
        this.pd = pd;
        this.attr = attr;
        this.dgidBytes = attr.dgid().raw();
        this.multicast = attr.dgid().isMulticast();
    }

    @Override
    public AhAttr attr() {
        return attr;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The owning domain (internal type). */
    public PdImpl pdImpl() {
        return pd;
    }

    /** Whether the handle is closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            pd.ahDestroyed();
        }
    }
}
