package com.ibm.disni;

/**
 * QP number to endpoint, read by a CQ thread for every completion without boxing or locking: lookups read a
 * volatile open-addressing table, (un)registrations (rare) copy it under a lock.
 *
 * @param <C> the endpoint type
 */
final class QpTable<C> {
    private static final int EMPTY = -1;

    private volatile Table table = new Table(16);

    private static final class Table {
        final int[] keys;
        final Object[] values;
        int size;

        Table(int capacity) {
            keys = new int[capacity];
            values = new Object[capacity];
            java.util.Arrays.fill(keys, EMPTY);
        }
    }

    @SuppressWarnings("unchecked")
    C get(int qpNum) {
        Table t = table;
        int mask = t.keys.length - 1;
        for (int i = mix(qpNum) & mask, n = 0; n < t.keys.length; i = (i + 1) & mask, n++) {
            int k = t.keys[i];
            if (k == qpNum) {
                return (C) t.values[i];
            }
            if (k == EMPTY) {
                return null;
            }
        }
        return null;
    }

    synchronized void put(int qpNum, C value) {
        Table old = table;
        int capacity = old.keys.length;
        while ((old.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        Table t = new Table(capacity);
        for (int i = 0; i < old.keys.length; i++) {
            if (old.keys[i] != EMPTY && old.keys[i] != qpNum && old.values[i] != null) {
                insert(t, old.keys[i], old.values[i]);
            }
        }
        insert(t, qpNum, value);
        table = t;
    }

    synchronized void remove(int qpNum) {
        Table old = table;
        Table t = new Table(old.keys.length);
        for (int i = 0; i < old.keys.length; i++) {
            if (old.keys[i] != EMPTY && old.keys[i] != qpNum) {
                insert(t, old.keys[i], old.values[i]);
            }
        }
        table = t;
    }

    private static void insert(Table t, int key, Object value) {
        int mask = t.keys.length - 1;
        int i = mix(key) & mask;
        while (t.keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        t.keys[i] = key;
        t.values[i] = value;
        t.size++;
    }

    private static int mix(int k) {
        int h = k * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
