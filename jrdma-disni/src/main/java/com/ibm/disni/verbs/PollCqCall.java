package com.ibm.disni.verbs;

import java.io.IOException;

import io.jrdma.verbs.WorkCompletion;

/**
 * A prepared {@code ibv_poll_cq}: jrdma polls into its own completions, which are copied field by field into the
 * caller's {@link IbvWC}s with libibverbs' numbers; nothing is allocated per poll.
 */
final class PollCqCall extends SVCPollCq {
    private final JrdmaVerbs.JCq cq;
    private final IbvWC[] wcList;
    private final WorkCompletion[] polled;
    private int result;
    private boolean valid = true;

    PollCqCall(JrdmaVerbs.JCq cq, IbvWC[] wcList, int ne) throws IOException {
        if (wcList == null || ne < 0 || ne > wcList.length) {
            throw new IOException("ibv_poll_cq: " + ne + " entries asked of an array of "
                    + (wcList == null ? "null" : Integer.toString(wcList.length)));
        }
        for (int i = 0; i < ne; i++) {
            if (wcList[i] == null) {
                throw new IOException("ibv_poll_cq: entry " + i + " of the completion array is null");
            }
        }
        this.cq = cq;
        this.wcList = wcList;
        this.polled = new WorkCompletion[ne];
        for (int i = 0; i < ne; i++) {
            polled[i] = new WorkCompletion();
        }
    }

    /** Copies a jrdma completion into DiSNI's form; every field is valid for errors too (libibverbs keeps qp_num). */
    static void copy(WorkCompletion w, IbvWC wc) {
        wc.wr_id = w.wrId();
        wc.status = w.status().value();
        int op = w.opcode().value();
        wc.opcode = op;
        wc.vendor_err = w.vendorErr();
        wc.byte_len = w.byteLen();
        wc.imm_data = w.immData();
        wc.qp_num = w.qpNum();
        wc.src_qp = w.srcQp();
        wc.wc_flags = w.wcFlags();
        wc.pkey_index = (short) w.pkeyIndex();
        wc.slid = (short) w.slid();
        wc.sl = (short) w.sl();
        wc.dlid_path_bits = 0;
        wc.isSend = op < IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode();
        wc.err = IbvWC.CQ_OK;
    }

    @Override
    public SVCPollCq execute() throws IOException {
        result = 0;
        if (!valid) {
            throw new IOException("ibv_poll_cq: the call was freed");
        }
        if (!cq.isOpen()) {
            throw new IOException("ibv_poll_cq: the CQ is destroyed");
        }
        int n;
        try {
            n = cq.cq.poll(polled, 0, polled.length);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_poll_cq", e);
        }
        for (int i = 0; i < n; i++) {
            copy(polled[i], wcList[i]);
        }
        result = n;
        return this;
    }

    @Override
    public int getPolls() {
        return result;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPollCq free() {
        valid = false;
        return this;
    }
}
