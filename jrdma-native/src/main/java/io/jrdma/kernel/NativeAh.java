package io.jrdma.kernel;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;

/** An address handle ({@code struct ibv_ah}). */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeAh extends NativeResource implements AddressHandle {
    private final NativePd pd;
    final MemorySegment ah;
    private final AhAttr attr;

    NativeAh(NativePd pd, MemorySegment ah, AhAttr attr) {
        this.pd = pd;
        this.ah = ah;
        this.attr = attr;
    }

    @Override
    String what() {
        return "address handle to " + attr.dgid();
    }

    @Override
    public AhAttr attr() {
        return attr;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    void destroy() {
        try {
            int rc = (int) Ibv.DESTROY_AH.invokeExact(ah);
            if (rc != 0) {
                throw Ibv.fail("ibv_destroy_ah", rc);
            }
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    void forget() {
        pd.ahs.remove(this);
    }
}
