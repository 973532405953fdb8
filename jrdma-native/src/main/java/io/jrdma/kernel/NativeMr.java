package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A memory region ({@code struct ibv_mr}) over native memory. The kernel pins its pages and the device
 * writes them until the region is deregistered, so only memory that cannot be freed while the region
 * references it is accepted by default (see {@link NativePd#closable}).
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class NativeMr extends NativeResource implements MemoryRegion {
    private final NativePd pd;
    final MemorySegment mr;
    private final MemorySegment segment;
    private final int access;
    final int lkey;
    private final int rkey;

    private NativeMr(NativePd pd, MemorySegment mr, MemorySegment segment, int access) {
        this.pd = pd;
        this.mr = mr;
        this.segment = segment;
        this.access = access;
        this.lkey = mr.get(JAVA_INT, Ibv.MR_LKEY);
        this.rkey = mr.get(JAVA_INT, Ibv.MR_RKEY);
    }

    static NativeMr register(NativePd pd, MemorySegment seg, int access) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment mr = (MemorySegment) Ibv.REG_MR.invokeExact(errno, pd.pd, seg, seg.byteSize(), access);
            if (mr.address() == 0) {
                int e = Ibv.errno(errno);
                if (e == 22) {
                    throw new IllegalArgumentException("ibv_reg_mr refused access " + io.jrdma.verbs.Access.toString(
                            access) + " (EINVAL; remote write and atomic access need local write)");
                }
                if (e == 12 || e == 1 || e == 11) {
                    throw new io.jrdma.verbs.RdmaException(io.jrdma.verbs.Errno.of(e), "ibv_reg_mr of "
                            + seg.byteSize() + " bytes failed: errno " + e + ": the locked-memory limit "
                            + "(RLIMIT_MEMLOCK, ulimit -l) is probably too low for it");
                }
                throw Ibv.fail("ibv_reg_mr", e);
            }
            return new NativeMr(pd, mr.reinterpret(Ibv.MR_SIZE), seg, access);
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    String what() {
        return "memory region lkey 0x" + Integer.toHexString(lkey);
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public boolean isValid() {
        return !closed && segment.scope().isAlive();
    }

    /** Whether {@code [addr, addr + len)} lies in this live region (what an inline send reads). */
    boolean covers(long addr, long len) {
        return isValid() && addr >= segment.address() && len >= 0
                && addr + len <= segment.address() + segment.byteSize();
    }

    @Override
    void destroy() {
        try {
            int rc = (int) Ibv.DEREG_MR.invokeExact(mr);
            if (rc != 0) {
                throw Ibv.fail("ibv_dereg_mr", rc);
            }
        } catch (Throwable t) {
            throw Ibv.rethrow(t);
        }
    }

    @Override
    void forget() {
        pd.removeMr(this);
    }
}
