package io.jrdma.verbs;

/**
 * A reusable scatter/gather list: the {@code sg_list}/{@code num_sge} pair of a work request. The
 * entries are allocated once and grow only when more are asked for. Linux: the {@code sg_list} and {@code num_sge} of
 * {@code ibv_send_wr} and {@code ibv_recv_wr}.
 */
public class SgList {
    private Sge[] entries;
    private int count;

    SgList(int capacity) {
        entries = new Sge[Math.max(1, capacity)];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new Sge();
        }
    }

    /** The {@code i}-th entry, growing the list if needed (the count is not changed). Linux: {@code sg_list[i]}. */
    public Sge sge(int i) {
        if (i < 0) {
            throw new IllegalArgumentException("negative SGE index " + i);
        }
        if (i >= entries.length) {
            Sge[] grown = new Sge[Math.max(i + 1, entries.length * 2)];
            System.arraycopy(entries, 0, grown, 0, entries.length);
            for (int j = entries.length; j < grown.length; j++) {
                grown[j] = new Sge();
            }
            entries = grown;
        }
        return entries[i];
    }

    /** The number of entries in use ({@code num_sge}). Linux: {@code num_sge}. */
    public int numSge() {
        return count;
    }

    /** Sets the number of entries in use. Linux: {@code num_sge}. */
    void setNumSge(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative num_sge " + n);
        }
        if (n > 0) {
            sge(n - 1);
        }
        count = n;
    }

    /** The sum of the lengths of the entries in use. Linux: the sum of the {@code ibv_sge.length}s. */
    public long totalLength() {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += entries[i].length();
        }
        return sum;
    }
}
