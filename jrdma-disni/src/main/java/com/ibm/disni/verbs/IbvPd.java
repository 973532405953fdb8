package com.ibm.disni.verbs;

import java.io.IOException;
import java.nio.ByteBuffer;

/** A protection domain ({@code struct ibv_pd}). */
public class IbvPd {
    private final RdmaVerbs verbs;
    protected int handle;
    protected IbvContext context;
    protected volatile boolean isOpen;

    /**
     * A domain of {@code context}.
     *
     * @param context the device context
     * @throws IOException if the verbs cannot be opened
     */
    public IbvPd(IbvContext context) throws IOException {
        this.verbs = RdmaVerbs.open();
        this.context = context;
        this.isOpen = true;
    }

    /**
     * The domain's handle.
     *
     * @return a number unique in the process
     * @throws IOException never; declared as DiSNI declares it
     */
    public int getHandle() throws IOException {
        return handle;
    }

    /**
     * The device context.
     *
     * @return the context
     */
    public IbvContext getContext() {
        return context;
    }

    /**
     * Whether the domain is open.
     *
     * @return {@code false} once deallocated
     */
    public boolean isOpen() {
        return isOpen;
    }

    /** Marks the domain closed (it does not deallocate it: {@link #deallocPd()} does). */
    public void close() {
        isOpen = false;
    }

    /**
     * {@code ibv_reg_mr} over the buffer's whole capacity, from its base address (position and limit are
     * ignored, as in DiSNI).
     *
     * @param buffer the memory (direct, for DiSNI's addresses to be native ones)
     * @param access {@code IbvMr.IBV_ACCESS_*} flags
     * @return the prepared registration
     * @throws IOException on failure
     */
    public SVCRegMr regMr(ByteBuffer buffer, int access) throws IOException {
        return verbs.regMr(this, buffer, access);
    }

    /**
     * {@code ibv_reg_mr} over native memory: {@code length} bytes at {@code address} (memory of another library, a
     * mapped file).
     *
     * @param address the native address
     * @param length the length in bytes
     * @param access {@code IbvMr.IBV_ACCESS_*} flags
     * @return the prepared registration
     * @throws IOException on failure
     */
    public SVCRegMr regMr(long address, int length, int access) throws IOException {
        return verbs.regMr(this, address, length, access);
    }

    /**
     * jrdma: {@code ibv_reg_mr} over native memory of any length, beyond 4 GiB included ({@code size_t} length).
     *
     * @param address the native address
     * @param length the length in bytes
     * @param access {@code IbvMr.IBV_ACCESS_*} flags
     * @return the prepared registration
     * @throws IOException on failure
     */
    public SVCRegMr regMr(long address, long length, int access) throws IOException {
        return ((JrdmaVerbs) verbs).regMr(this, address, length, access);
    }

    /**
     * {@code ibv_dealloc_pd}.
     *
     * @return 0
     * @throws Exception while regions or QPs still use the domain
     */
    public int deallocPd() throws Exception {
        return verbs.deallocPd(this);
    }
}
