package com.ibm.disni.verbs;

import java.io.IOException;
import java.util.List;

import io.jrdma.verbs.RecvWr;

/** A prepared {@code ibv_post_recv}: a chain of jrdma {@link RecvWr}s copied once, posted by each execute. */
final class PostRecvCall extends SVCPostRecv {
    private final JrdmaVerbs.JQp qp;
    private final RecvWr head;
    private final int count;
    private final RecvWRMod[] mods;
    private boolean valid = true;

    PostRecvCall(JrdmaVerbs.JQp qp, List<IbvRecvWR> wrList) throws IOException {
        if (wrList == null || wrList.isEmpty()) {
            throw new IOException("ibv_post_recv: the work-request list is empty");
        }
        this.qp = qp;
        this.count = wrList.size();
        this.mods = new RecvWRMod[count];
        RecvWr prev = null;
        RecvWr first = null;
        int i = 0;
        for (IbvRecvWR w : wrList) {
            List<IbvSge> sges = w.getSg_list();
            int n = w.getNum_sge();
            if (n < 0 || sges == null || n > sges.size()) {
                throw new IOException("ibv_post_recv: work request " + i + " has num_sge " + n + " but "
                        + (sges == null ? 0 : sges.size()) + " entries in its sg_list (EINVAL)");
            }
            RecvWr r = new RecvWr(Math.max(1, n)).wrId(w.getWr_id());
            int j = 0;
            for (IbvSge e : sges) {
                if (j == n) {
                    break;
                }
                r.sge(j++).set(e.getAddr(), e.getLength(), e.getLkey());
            }
            r.numSge(n);
            RecvWr posted = r;
            mods[i] = posted::wrId;
            if (prev == null) {
                first = r;
            } else {
                prev.next(r);
            }
            prev = r;
            i++;
        }
        this.head = first;
    }

    @Override
    public SVCPostRecv execute() throws IOException {
        if (!valid) {
            throw new IOException("ibv_post_recv: the call was freed");
        }
        if (!qp.isOpen()) {
            throw new IOException("ibv_post_recv: the queue pair is destroyed");
        }
        int posted;
        try {
            posted = qp.qp.postRecv(head);
        } catch (RuntimeException e) {
            throw Jrdma.io("ibv_post_recv", e);
        }
        if (posted < count) {
            throw new IOException("ibv_post_recv failed: the receive queue is full (ENOMEM): " + posted + " of "
                    + count + " work requests posted");
        }
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPostRecv free() {
        valid = false;
        return this;
    }

    @Override
    public RecvWRMod getWrMod(int index) throws IOException {
        if (index < 0 || index >= count) {
            throw new IOException("ibv_post_recv: no work request " + index + " (the call has " + count + ")");
        }
        return mods[index];
    }
}
