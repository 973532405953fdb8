package io.jrdma.kernel;

/**
 * The work requests of one queue of a QP that the kernel has not yet reported done, oldest first: each post
 * adds the ids and flags of its WRs, each completion the CQ takes from the kernel retires entries. libibverbs
 * has no verb for a queue's depth, and an error completion's opcode is undefined (Linux rxe leaves it 0,
 * IBV_WC_SEND, for a flushed receive), so this is how a QP knows its depths and which of its queues an error
 * completion belongs to.
 *
 * <p>A queue completes in order. A successful send completion retires the unsignaled WRs before it, which
 * the device retired without a completion; a successful receive or an error completion retires the entry it
 * names. Unsignaled WRs after the last signaled one stay until a later completion (or a flush) retires them.
 * The ring holds more entries than the queue: when it is full, the oldest entry has retired and is dropped.
 * Allocation-free; the post and poll paths lock it briefly.
 */
final class WrRing {
    /** The WR asked for a completion (or the QP signals every WR). */
    static final int SIGNALED = 1;
    /** The WR is one the QP posted itself, to learn when a flush is over; its completion is not delivered. */
    static final int MARKER = 2;

    private final long[] ids;
    private final byte[] flags;
    private final int mask;
    /** Guarded by this. */
    private long head;
    private long tail;

    /** A ring for a queue of {@code entries} WRs (rounded up to a power of two). */
    WrRing(int entries) {
        int cap = Integer.highestOneBit(Math.max(2, entries) - 1) << 1;
        ids = new long[cap];
        flags = new byte[cap];
        mask = cap - 1;
    }

    /** The WRs not yet retired (markers included). */
    synchronized int size() {
        return (int) (tail - head);
    }

    /** Appends a WR; when the ring is full the oldest entry, which must have retired, is dropped. */
    synchronized void add(long id, int f) {
        if (tail - head == ids.length) {
            head++;
        }
        int k = (int) (tail & mask);
        ids[k] = id;
        flags[k] = (byte) f;
        tail++;
    }

    /** Removes the {@code n} newest entries (added before a post that the library took only partly). */
    synchronized void dropNewest(int n) {
        tail -= Math.min(n, tail - head);
    }

    /** Forgets every entry (the QP was reset or destroyed). */
    synchronized void clear() {
        head = tail;
    }

    /**
     * Retires the oldest entry with {@code id} (with {@code signaledOnly}, the oldest signaled one) and every
     * entry before it.
     *
     * @return the flags of the entry retired, or -1 if no entry matched (nothing is retired)
     */
    synchronized int retire(long id, boolean signaledOnly) {
        for (long i = head; i < tail; i++) {
            int k = (int) (i & mask);
            if (ids[k] == id && (!signaledOnly || (flags[k] & SIGNALED) != 0)) {
                head = i + 1;
                return flags[k];
            }
        }
        return -1;
    }

    /** Whether an entry has {@code id}. */
    synchronized boolean holds(long id) {
        for (long i = head; i < tail; i++) {
            if (ids[(int) (i & mask)] == id) {
                return true;
            }
        }
        return false;
    }

    /** Whether the oldest entry has {@code id}. */
    synchronized boolean oldestIs(long id) {
        return tail != head && ids[(int) (head & mask)] == id;
    }
}
