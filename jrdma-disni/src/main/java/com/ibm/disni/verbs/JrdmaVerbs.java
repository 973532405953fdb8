package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QueuePair;

/**
 * DiSNI's verbs on {@code io.jrdma.verbs}: each DiSNI object wraps its jrdma counterpart. Memory is addressed as
 * jrdma addresses it: a region of native memory (a direct buffer, a mapped file, memory by address) has its native
 * address as virtual address, so DiSNI's raw addresses ({@link IbvMr#getAddr()}, {@link IbvSge#getAddr()}, a
 * buffer's address) are passed through unchanged, and jrdma checks each entry against the region its key names
 * (outside it, the request completes with {@code IBV_WC_LOC_PROT_ERR}, as libibverbs reports it).
 */
final class JrdmaVerbs extends RdmaVerbs {
    /** The access bits jrdma knows; {@code MW_BIND} and {@code ON_DEMAND} are accepted and dropped. */
    private static final int IGNORED_ACCESS = (1 << 4) | (1 << 6);

    JrdmaVerbs() {
    }

    static JContext context(IbvContext c) throws IOException {
        if (!(c instanceof JContext j)) {
            throw new IOException("not a device context of jrdma-disni: " + c);
        }
        return j;
    }

    static JPd pd(IbvPd pd) throws IOException {
        if (!(pd instanceof JPd j) || !j.isOpen()) {
            throw new IOException("not an open protection domain of jrdma-disni: " + pd);
        }
        return j;
    }

    static JCq jcq(IbvCQ cq) throws IOException {
        if (!(cq instanceof JCq j) || !j.isOpen()) {
            throw new IOException("not an open completion queue of jrdma-disni: " + cq);
        }
        return j;
    }

    static CompletionQueue cq(IbvCQ cq, String what) throws IOException {
        if (cq == null) {
            throw new IOException("the " + what + " must not be null");
        }
        return jcq(cq).cq;
    }

    static JQp qp(IbvQP qp) throws IOException {
        if (!(qp instanceof JQp j)) {
            throw new IOException("not a queue pair of jrdma-disni: " + qp);
        }
        return j;
    }

    static int access(int disniAccess) throws IOException {
        int a = disniAccess & ~IGNORED_ACCESS;
        if ((a & ~Access.ALL) != 0) {
            throw new IOException("ibv_reg_mr: unknown access flags 0x" + Integer.toHexString(a & ~Access.ALL));
        }
        return a;
    }

    @Override
    public IbvPd allocPd(IbvContext context) throws IOException {
        JContext c = context(context);
        try {
            return new JPd(c.context.allocPd(), c);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_alloc_pd", e);
        }
    }

    @Override
    public IbvCompChannel createCompChannel(IbvContext context) throws IOException {
        JContext c = context(context);
        try {
            return new JCompChannel(c.context.createCompletionChannel(), c);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_create_comp_channel", e);
        }
    }

    @Override
    public IbvCQ createCQ(IbvContext context, IbvCompChannel compChannel, int ncqe, int compVector)
            throws IOException {
        JContext c = context(context);
        CompletionChannel ch = null;
        if (compChannel != null) {
            if (!(compChannel instanceof JCompChannel j) || !j.isOpen()) {
                throw new IOException("ibv_create_cq: not an open completion channel of jrdma-disni");
            }
            ch = j.channel;
        }
        try {
            return new JCq(c.context.createCq(ncqe, ch, compVector), c, compChannel);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_create_cq(" + ncqe + ")", e);
        }
    }

    @Override
    public boolean getCqEvent(IbvCompChannel compChannel, IbvCQ cq, int timeout) throws IOException {
        if (!(compChannel instanceof JCompChannel ch) || !ch.isOpen()) {
            throw new IOException("ibv_get_cq_event: not an open completion channel of jrdma-disni");
        }
        try {
            CompletionQueue got = timeout < 0 ? ch.channel.getEvent() : ch.channel.getEvent(Duration.ofMillis(timeout));
            if (got != null) {
                ch.taken(got).incrementAndGet();
            }
            return got != null;
        } catch (InterruptedException e) {
            throw Jrdma.interrupted("ibv_get_cq_event", e);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_get_cq_event", e);
        }
    }

    @Override
    public SVCRegMr regMr(IbvPd pd, ByteBuffer buffer, int access) throws IOException {
        JPd p = pd(pd);
        if (buffer == null) {
            throw new IOException("ibv_reg_mr: the buffer must not be null");
        }
        return new RegMrCall(p, buffer, 0, 0, access(access));
    }

    @Override
    public SVCRegMr regMr(IbvPd pd, long address, int length, int access) throws IOException {
        return regMr(pd, address, Integer.toUnsignedLong(length), access);
    }

    /** {@code ibv_reg_mr} by address with a {@code size_t} length. */
    SVCRegMr regMr(IbvPd pd, long address, long length, int access) throws IOException {
        JPd p = pd(pd);
        if (address == 0 || length <= 0) {
            throw new IOException("ibv_reg_mr: no memory at address 0x" + Long.toHexString(address) + ", length "
                    + length + " (EINVAL)");
        }
        return new RegMrCall(p, null, address, length, access(access));
    }

    @Override
    public int queryOdpSupport(IbvContext context) throws IOException {
        JContext c = context(context);
        // Registration never pins memory: every region is read and written through the JVM on demand, so every
        // operation "supports ODP"; atomics only where the device has them.
        int bits = IbvContext.IBV_ODP_SUPPORT_SEND | IbvContext.IBV_ODP_SUPPORT_RECV
                | IbvContext.IBV_ODP_SUPPORT_WRITE | IbvContext.IBV_ODP_SUPPORT_READ;
        if (c.attributes().atomicCap() != AtomicCap.NONE) {
            bits |= IbvContext.IBV_ODP_SUPPORT_ATOMIC;
        }
        return bits;
    }

    @Override
    public int expPrefetchMr(IbvMr ibvMr, long address, int length) throws IOException {
        if (!(ibvMr instanceof JMr mr) || !mr.isOpen()) {
            throw new IOException("prefetch: not a registered region of jrdma-disni: " + ibvMr);
        }
        long offset = address - mr.getAddr();
        long len = Integer.toUnsignedLong(length);
        if (offset < 0 || offset + len > mr.mr.length()) {
            return Errno.EINVAL.code();
        }
        MemorySegment part = mr.mr.segment().asSlice(offset, len);
        if (part.isMapped()) {
            part.load();
        } else {
            // touch one byte a page: the software form of a prefetch
            for (long o = 0; o < len; o += 4096) {
                part.get(ValueLayout.JAVA_BYTE, o);
            }
        }
        return 0;
    }

    @Override
    public SVCDeregMr deregMr(IbvMr mr) throws IOException {
        if (!(mr instanceof JMr m)) {
            throw new IOException("ibv_dereg_mr: not a region of jrdma-disni: " + mr);
        }
        return new DeregMrCall(m);
    }

    @Override
    public SVCPostSend postSend(IbvQP qp, List<IbvSendWR> wrList, List<IbvSendWR> badwrList) throws IOException {
        return new PostSendCall(qp(qp), wrList);
    }

    @Override
    public SVCPostRecv postRecv(IbvQP qp, List<IbvRecvWR> wrList, List<IbvRecvWR> badwrList) throws IOException {
        return new PostRecvCall(qp(qp), wrList);
    }

    @Override
    public SVCPollCq pollCQ(IbvCQ cq, IbvWC[] wcList, int ne) throws IOException {
        return new PollCqCall(jcq(cq), wcList, ne);
    }

    @Override
    public SVCReqNotify reqNotifyCQ(IbvCQ cq, boolean solicitedOnly) throws IOException {
        JCq c = jcq(cq);
        if (c.getChannel() == null) {
            throw new IOException("ibv_req_notify_cq: the CQ has no completion channel");
        }
        return new ReqNotifyCall(c, solicitedOnly);
    }

    @Override
    public int ackCqEvents(IbvCQ cq, int nevents) throws IOException {
        JCq c = jcq(cq);
        if (c.getChannel() instanceof JCompChannel ch && nevents > 0) {
            // libibverbs counts acknowledgements without checking them, and DiSNI's own examples acknowledge a
            // CQ's polled completions rather than its events: acknowledge at most the events taken
            AtomicInteger taken = ch.taken(c.cq);
            int n;
            int left;
            do {
                left = taken.get();
                n = Math.min(left, nevents);
            } while (n > 0 && !taken.compareAndSet(left, left - n));
            if (n == 0) {
                return 0;
            }
            try {
                ch.channel.ackEvents(c.cq, n);
            } catch (RuntimeException e) {
                throw Jrdma.io("ibv_ack_cq_events", e);
            }
        }
        return 0;
    }

    @Override
    public int destroyCompChannel(IbvCompChannel compChannel) throws IOException {
        if (!(compChannel instanceof JCompChannel ch) || !ch.isOpen()) {
            throw new IOException("ibv_destroy_comp_channel: not an open completion channel of jrdma-disni");
        }
        try {
            ch.channel.close();
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_destroy_comp_channel", e);
        }
        ch.close();
        return 0;
    }

    @Override
    public int deallocPd(IbvPd pd) throws IOException {
        JPd p = pd(pd);
        try {
            p.pd.close();
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_dealloc_pd", e);
        }
        p.close();
        return 0;
    }

    @Override
    public int destroyCQ(IbvCQ cq) throws IOException {
        JCq c = jcq(cq);
        try {
            c.cq.close();
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_destroy_cq", e);
        }
        if (c.getChannel() instanceof JCompChannel ch) {
            ch.forget(c.cq);
        }
        c.close();
        return 0;
    }

    /** A device context: a jrdma {@link Context} (the connection manager's, shared by its ids). */
    static final class JContext extends IbvContext {
        final Context context;
        private volatile DeviceAttributes attributes;

        JContext(Context context, int fd) throws IOException {
            super(fd, 1);
            this.context = context;
        }

        DeviceAttributes attributes() {
            DeviceAttributes a = attributes;
            if (a == null) {
                a = context.queryDevice();
                attributes = a;
            }
            return a;
        }
    }

    /** A protection domain: a jrdma {@link ProtectionDomain}. */
    static final class JPd extends IbvPd {
        final ProtectionDomain pd;
        private final JContext ctx;

        JPd(ProtectionDomain pd, JContext context) throws IOException {
            super(context);
            this.pd = pd;
            this.ctx = context;
            this.handle = Jrdma.nextNumber();
        }

        JContext context() {
            return ctx;
        }
    }

    /** A memory region: a jrdma {@link MemoryRegion}. */
    static final class JMr extends IbvMr {
        final MemoryRegion mr;

        JMr(MemoryRegion mr, JContext context, int access) throws IOException {
            super(context, mr.address(), (int) Math.min(Integer.MAX_VALUE, mr.length()), access, mr.lkey(), mr.rkey(),
                    Jrdma.nextNumber());
            this.mr = mr;
        }

        @Override
        public long getLengthLong() {
            return mr.length();
        }

        @Override
        public boolean isOpen() {
            return super.isOpen() && mr.isValid();
        }
    }

    /** A completion queue: a jrdma {@link CompletionQueue}. */
    static final class JCq extends IbvCQ {
        final CompletionQueue cq;

        JCq(CompletionQueue cq, JContext context, IbvCompChannel channel) throws IOException {
            super(context, channel, Jrdma.nextNumber());
            this.cq = cq;
            this.cqe = cq.capacity();
        }
    }

    /** A completion channel: a jrdma {@link CompletionChannel}. */
    static final class JCompChannel extends IbvCompChannel {
        final CompletionChannel channel;
        /** Events taken and not yet acknowledged, per CQ. */
        private final Map<CompletionQueue, AtomicInteger> taken = new ConcurrentHashMap<>();

        AtomicInteger taken(CompletionQueue cq) {
            return taken.computeIfAbsent(cq, q -> new AtomicInteger());
        }

        void forget(CompletionQueue cq) {
            taken.remove(cq);
        }

        JCompChannel(CompletionChannel channel, JContext context) throws IOException {
            super(Jrdma.nextNumber(), context);
            this.channel = channel;
        }
    }

    /** A queue pair: a jrdma {@link QueuePair}. */
    static final class JQp extends IbvQP {
        final QueuePair qp;

        JQp(QueuePair qp, JPd pd, IbvCQ sendCq, IbvCQ recvCq) throws IOException {
            super(qp.qpNum());
            this.qp = qp;
            this.pd = pd;
            this.context = pd.context();
            this.send_cq = sendCq;
            this.recv_cq = recvCq;
            this.handle = Jrdma.nextNumber();
            this.qp_type = qp.type().value();
        }

        @Override
        public int getState() {
            try {
                return qp.state().ordinal();
            } catch (RuntimeException e) {
                return IBV_QPS_ERR;
            }
        }
    }

    /** {@code ibv_reg_mr}: each execute registers the memory once more, as DiSNI's call does. */
    static final class RegMrCall extends SVCRegMr {
        private final JPd pd;
        private final ByteBuffer buffer;
        private final long address;
        private final long length;
        private final int access;
        private IbvMr mr;
        private boolean valid = true;

        RegMrCall(JPd pd, ByteBuffer buffer, long address, long length, int access) {
            this.pd = pd;
            this.buffer = buffer;
            this.address = address;
            this.length = length;
            this.access = access;
        }

        @Override
        public SVCRegMr execute() throws IOException {
            if (!valid) {
                throw new IOException("ibv_reg_mr: the call was freed");
            }
            if (!pd.isOpen()) {
                throw new IOException("ibv_reg_mr: the protection domain is deallocated");
            }
            MemoryRegion r;
            try {
                if (buffer != null) {
                    // DiSNI registers the buffer from its base address over its whole capacity
                    ByteBuffer whole = buffer.duplicate().clear();
                    r = pd.pd.registerMemory(whole, access);
                } else {
                    r = pd.pd.registerMemory(MemorySegment.ofAddress(address).reinterpret(length), access);
                }
            } catch (RuntimeException e) {
                throw Jrdma.io("ibv_reg_mr", e);
            }
            mr = new JMr(r, pd.context(), access);
            return this;
        }

        @Override
        public IbvMr getMr() {
            return mr;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public SVCRegMr free() {
            valid = false;
            return this;
        }
    }

    /** {@code ibv_dereg_mr}. */
    static final class DeregMrCall extends SVCDeregMr {
        private final JMr mr;
        private boolean valid = true;

        DeregMrCall(JMr mr) {
            this.mr = mr;
        }

        @Override
        public SVCDeregMr execute() throws IOException {
            if (!valid) {
                throw new IOException("ibv_dereg_mr: the call was freed");
            }
            if (!mr.isOpen()) {
                throw new IOException("ibv_dereg_mr: the region is deregistered already");
            }
            try {
                mr.mr.close();
            } catch (RuntimeException e) {
                throw Jrdma.io("ibv_dereg_mr", e);
            }
            mr.close();
            return this;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public SVCDeregMr free() {
            valid = false;
            return this;
        }
    }

    /** {@code ibv_req_notify_cq}. */
    static final class ReqNotifyCall extends SVCReqNotify {
        private final JCq cq;
        private final boolean solicitedOnly;
        private boolean valid = true;

        ReqNotifyCall(JCq cq, boolean solicitedOnly) {
            this.cq = cq;
            this.solicitedOnly = solicitedOnly;
        }

        @Override
        public SVCReqNotify execute() throws IOException {
            if (!valid || !cq.isOpen()) {
                throw new IOException("ibv_req_notify_cq: " + (valid ? "the CQ is destroyed" : "the call was freed"));
            }
            try {
                cq.cq.requestNotify(solicitedOnly);
            } catch (RuntimeException e) {
                throw Jrdma.io("ibv_req_notify_cq", e);
            }
            return this;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public SVCReqNotify free() {
            valid = false;
            return this;
        }
    }
}
