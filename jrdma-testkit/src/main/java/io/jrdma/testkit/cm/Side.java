package io.jrdma.testkit.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.cm.CmId;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One endpoint of a test connection: a CM id with a protection domain, a completion queue and a
 * registered buffer on the id's device, and the QP once created. Everything lives on the verbs
 * context the connection manager opened, so closing the manager releases it.
 */
final class Side {
    /** Size of the registered buffer; each receive gets one slot of {@link #SLOT}. */
    static final int BUFFER = 64 * 1024;
    /** One receive or send slot: large enough for the 40-byte GRH of a UD receive plus a message. */
    static final int SLOT = 1024;
    /** Receive/send queue depth of the QPs the suite creates. */
    static final int DEPTH = 32;

    final CmId id;
    final Context context;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final MemorySegment buffer;
    final MemoryRegion mr;
    QueuePair qp;

    private Side(CmId id, Context context, ProtectionDomain pd) {
        this.id = id;
        this.context = context;
        this.pd = pd;
        this.cq = context.createCq(4 * DEPTH);
        this.buffer = Arena.ofAuto().allocate(BUFFER, 64);
        this.mr = pd.registerMemory(buffer, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
    }

    /** Verbs resources for {@code id} (bound to a device) with a fresh PD. */
    static Side of(CmId id) {
        assertThat(id.verbs()).as("the id has a device").isNotNull();
        return new Side(id, id.verbs(), id.verbs().allocPd());
    }

    /** The attributes of the suite's QPs of the id's type. */
    QpInitAttr qpAttr() {
        return QpInitAttr.of(id.qpType(), cq, QpCap.of(DEPTH, DEPTH));
    }

    /** Creates the QP through the id ({@code rdma_create_qp}). */
    QueuePair createQp() {
        qp = id.createQp(pd, qpAttr());
        return qp;
    }

    /** Creates a QP outside the id (the user does its own transitions). */
    QueuePair createOwnQp() {
        qp = pd.createQp(qpAttr());
        return qp;
    }

    /**
     * Frees the side's verbs resources: its QP, region, CQ and PD (closing the connection manager closes
     * its contexts, but a region left registered there stays in the device's key table).
     */
    void close() {
        if (qp != null) {
            if (id.qp() == qp) {
                id.destroyQp();
            } else {
                qp.close();
            }
        }
        mr.close();
        cq.close();
        pd.close();
    }

    /** Posts a receive into slot {@code slot} with work request id {@code wrId}. */
    void postRecv(long wrId, int slot) {
        assertThat(qp.postRecv(new RecvWr().wrId(wrId).sg(mr, (long) slot * SLOT, SLOT))).isEqualTo(1);
    }

    /** Writes {@code data} into slot {@code slot} and sends it, signaled, with {@code wrId}. */
    void send(long wrId, int slot, byte[] data) {
        MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, (long) slot * SLOT, data.length);
        SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                .sg(mr, (long) slot * SLOT, data.length);
        assertThat(qp.postSend(wr)).isEqualTo(1);
    }

    /** Sends {@code data} over UD to {@code remoteQpn}/{@code qkey} through {@code ah}. */
    void sendUd(long wrId, int slot, byte[] data, AddressHandle ah, int remoteQpn, int qkey) {
        MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, (long) slot * SLOT, data.length);
        SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                .sg(mr, (long) slot * SLOT, data.length).ud(ah, remoteQpn, qkey);
        assertThat(qp.postSend(wr)).isEqualTo(1);
    }

    /** The bytes of slot {@code slot} from {@code offset}. */
    byte[] read(int slot, int offset, int length) {
        byte[] out = new byte[length];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, (long) slot * SLOT + offset, out, 0, length);
        return out;
    }

    /** The next completion within {@code wait}; fails if none comes. */
    Completion awaitCompletion(Duration wait) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return Completion.of(wc[0]);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        throw new AssertionError("no completion within " + wait);
    }

    /**
     * At least {@code expected} completions, waiting up to {@link CmChecks#WAIT} for them (flushes come from
     * the provider's engine, later than any short window on a loaded host), then every further one arriving
     * until the CQ stays empty for {@code quiet}. Fewer than {@code expected} are returned as they are, for
     * the caller's assertion to name.
     */
    List<Completion> drain(int expected, Duration quiet) {
        List<Completion> out = new ArrayList<>();
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + CmChecks.WAIT.toNanos();
        while (out.size() < expected && System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                out.add(Completion.of(wc[0]));
            } else {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        out.addAll(drain(quiet));
        return out;
    }

    /** Every completion arriving until the CQ stays empty for {@code quiet}. */
    List<Completion> drain(Duration quiet) {
        List<Completion> out = new ArrayList<>();
        WorkCompletion[] wc = {new WorkCompletion()};
        long idleSince = System.nanoTime();
        while (System.nanoTime() - idleSince < quiet.toNanos()) {
            if (cq.poll(wc) == 1) {
                out.add(Completion.of(wc[0]));
                idleSince = System.nanoTime();
            } else {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        return out;
    }
}
