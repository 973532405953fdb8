package io.jrdma.internal.verbs;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A device's memory keys: a table indexed by the 24-bit key index, each slot remembering the 8-bit
 * key it last handed out so a stale key never matches a reused slot. Lookups from engine threads
 * are one acquire read and no lock; registration and deregistration take the table's lock.
 */
public final class MemoryTable {
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(MrImpl[].class);
    private static final int MAX_INDEX = (1 << 24) - 1;

    private volatile MrImpl[] slots = new MrImpl[256];
    private byte[] keys = new byte[256];
    private int[] free = new int[256];
    private int freeCount;
    private int nextIndex = 1; // index 0 is never used, so key 0 is never valid
    private int live;
    private final int maxRegions;

    /** A table of at most {@code maxRegions} live regions. */
    public MemoryTable(int maxRegions) {
        this.maxRegions = maxRegions;
    }

    /** Finds the live region with exactly this key, or {@code null}. Any thread; allocation-free. */
    public MrImpl lookup(int key) {
        int index = key >>> 8;
        MrImpl[] s = slots;
        if (index >= s.length) {
            return null;
        }
        MrImpl mr = (MrImpl) SLOTS.getAcquire(s, index);
        if (mr == null || mr.key != key) {
            return null;
        }
        return mr;
    }

    /** Allocates a key for a new region; {@code factory} builds it with the key. */
    synchronized MrImpl register(java.util.function.IntFunction<MrImpl> factory) {
        if (live >= maxRegions) {
            throw new RdmaException(Errno.ENOMEM, "device limit of " + maxRegions + " memory regions reached");
        }
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else {
            if (nextIndex > MAX_INDEX) {
                throw new RdmaException(Errno.ENOMEM, "memory key space exhausted");
            }
            index = nextIndex++;
        }
        if (index >= keys.length) {
            int n = Math.max(index + 1, keys.length * 2);
            keys = Arrays.copyOf(keys, n);
            slots = Arrays.copyOf(slots, n);
        }
        int key8 = (keys[index] + 1) & 0xFF;
        keys[index] = (byte) key8;
        MrImpl mr = factory.apply(index << 8 | key8);
        SLOTS.setRelease(slots, index, mr);
        live++;
        return mr;
    }

    /** Removes a region; its key stops matching at once. */
    synchronized void deregister(MrImpl mr) {
        int index = mr.key >>> 8;
        MrImpl[] s = slots;
        if (index < s.length && SLOTS.getAcquire(s, index) == mr) {
            SLOTS.setRelease(s, index, (MrImpl) null);
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, free.length * 2);
            }
            free[freeCount++] = index;
            live--;
        }
    }

    /** The number of live regions. */
    public synchronized int size() {
        return live;
    }
}
