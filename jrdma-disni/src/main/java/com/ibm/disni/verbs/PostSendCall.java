package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;

import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;

/**
 * A prepared {@code ibv_post_send}: the DiSNI requests are copied once into a chain of jrdma {@link SendWr}s, the
 * modifiers write straight into that chain, and {@link #execute()} posts it as it is, allocating nothing.
 */
final class PostSendCall extends SVCPostSend {
    private final JrdmaVerbs.JQp qp;
    private final SendWr head;
    private final int count;
    private final WrMod[] mods;
    private boolean valid = true;

    PostSendCall(JrdmaVerbs.JQp qp, List<IbvSendWR> wrList) throws IOException {
        if (wrList == null || wrList.isEmpty()) {
            throw new IOException("ibv_post_send: the work-request list is empty");
        }
        this.qp = qp;
        this.count = wrList.size();
        this.mods = new WrMod[count];
        SendWr prev = null;
        SendWr first = null;
        int i = 0;
        for (IbvSendWR w : wrList) {
            SendWr s = copy(w, i);
            mods[i] = new WrMod(s, w.getOpcode());
            if (prev == null) {
                first = s;
            } else {
                prev.next(s);
            }
            prev = s;
            i++;
        }
        this.head = first;
    }

    /** libibverbs' {@code enum ibv_wr_opcode} value of DiSNI's request as jrdma's opcode. */
    static WrOpcode opcode(int value) throws IOException {
        return switch (value) {
            case IbvSendWR.IBV_WR_RDMA_WRITE -> WrOpcode.RDMA_WRITE;
            case IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM -> WrOpcode.RDMA_WRITE_WITH_IMM;
            case IbvSendWR.IBV_WR_SEND -> WrOpcode.SEND;
            case IbvSendWR.IBV_WR_SEND_WITH_IMM -> WrOpcode.SEND_WITH_IMM;
            case IbvSendWR.IBV_WR_RDMA_READ -> WrOpcode.RDMA_READ;
            case IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP -> WrOpcode.ATOMIC_CMP_AND_SWP;
            case IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD -> WrOpcode.ATOMIC_FETCH_AND_ADD;
            default -> throw new IOException("ibv_post_send: unknown opcode " + value + " (EINVAL)");
        };
    }

    private static SendWr copy(IbvSendWR w, int index) throws IOException {
        List<IbvSge> sges = w.getSg_list();
        int n = w.getNum_sge();
        if (n < 0 || n > sges.size()) {
            throw new IOException("ibv_post_send: work request " + index + " has num_sge " + n + " but "
                    + sges.size() + " entries in its sg_list (EINVAL)");
        }
        WrOpcode op = opcode(w.getOpcode());
        SendWr s = new SendWr(Math.max(1, n)).wrId(w.getWr_id()).opcode(op).flags(w.getSend_flags())
                .immData(w.getImm_data());
        if (op.isAtomic()) {
            IbvSendWR.Atomic a = w.getAtomic();
            s.atomic(a.getRemote_addr(), a.getRkey(), a.getCompare_add(), a.getSwap());
        } else {
            s.rdma(w.getRdma().getRemote_addr(), w.getRdma().getRkey());
        }
        int j = 0;
        for (IbvSge e : sges) {
            if (j == n) {
                break;
            }
            s.sge(j++).set(e.getAddr(), e.getLength(), e.getLkey());
        }
        s.numSge(n);
        return s;
    }

    @Override
    public SVCPostSend execute() throws IOException {
        if (!valid) {
            throw new IOException("ibv_post_send: the call was freed");
        }
        if (!qp.isOpen()) {
            throw new IOException("ibv_post_send: the queue pair is destroyed");
        }
        int posted;
        try {
            posted = qp.qp.postSend(head);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_post_send", e);
        }
        if (posted < count) {
            throw new IOException("ibv_post_send failed: the send queue is full (ENOMEM): " + posted + " of " + count
                    + " work requests posted");
        }
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPostSend free() {
        valid = false;
        return this;
    }

    @Override
    public SendWRMod getWrMod(int index) throws IOException {
        if (index < 0 || index >= count) {
            throw new IOException("ibv_post_send: no work request " + index + " (the call has " + count + ")");
        }
        return mods[index];
    }

    /** The editable copy of one request: every setter writes the jrdma request the next execute posts. */
    private static final class WrMod implements SendWRMod, RdmaMod {
        private final SendWr wr;
        private final int opcode;
        private final boolean atomic;
        private final SgeModImpl[] sges;
        private int reserved;

        WrMod(SendWr wr, int opcode) {
            this.wr = wr;
            this.opcode = opcode;
            this.atomic = wr.opcode().isAtomic();
            this.sges = new SgeModImpl[wr.numSge()];
            for (int i = 0; i < sges.length; i++) {
                sges[i] = new SgeModImpl(wr.sge(i));
            }
        }

        @Override
        public void setWr_id(long wrId) {
            wr.wrId(wrId);
        }

        @Override
        public void setSend_flags(int sendFlags) {
            wr.flags(sendFlags);
        }

        @Override
        public long getWr_id() {
            return wr.wrId();
        }

        @Override
        public int getNum_sge() {
            return wr.numSge();
        }

        @Override
        public int getOpcode() {
            return opcode;
        }

        @Override
        public int getSend_flags() {
            return wr.flags();
        }

        @Override
        public RdmaMod getRdmaMod() {
            return this;
        }

        @Override
        public SgeMod getSgeMod(int index) {
            return sges[index];
        }

        @Override
        public void setRemote_addr(long remoteAddr) {
            if (atomic) {
                wr.atomic(remoteAddr, wr.rkey(), wr.compareAdd(), wr.swap());
            } else {
                wr.rdma(remoteAddr, wr.rkey());
            }
        }

        @Override
        public long getRemote_addr() {
            return wr.remoteAddr();
        }

        @Override
        public void setRkey(int rkey) {
            if (atomic) {
                wr.atomic(wr.remoteAddr(), rkey, wr.compareAdd(), wr.swap());
            } else {
                wr.rdma(wr.remoteAddr(), rkey);
            }
        }

        @Override
        public int getRkey() {
            return wr.rkey();
        }

        @Override
        public void setReserved(int value) {
            reserved = value;
        }

        @Override
        public int getReserved() {
            return reserved;
        }
    }

    /** An editable entry: the jrdma {@link Sge} itself. */
    static final class SgeModImpl implements SgeMod {
        private final Sge sge;

        SgeModImpl(Sge sge) {
            this.sge = sge;
        }

        @Override
        public void setAddr(long addr) {
            sge.addr(addr);
        }

        @Override
        public long getAddr() {
            return sge.addr();
        }

        @Override
        public void setLength(int length) {
            sge.length(length);
        }

        @Override
        public int getLength() {
            return sge.length();
        }

        @Override
        public void setLkey(int lkey) {
            sge.lkey(lkey);
        }

        @Override
        public int getLkey() {
            return sge.lkey();
        }
    }
}
