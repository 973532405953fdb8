package io.jrdma.internal.verbs;

/**
 * How QP numbers are laid out in this process, for every provider: core hands them out
 * ({@link DeviceImpl}) and the providers that keep their own QP table index it the same way
 * ({@link #index}), so that a table never grows beyond {@link #WINDOW} entries.
 *
 * <pre>
 *  0x000000 .. 0x000010   reserved: QP0 (SMI), QP1 (GSI, the CM's MADs) and the rest rxe keeps back
 *  0x000011 .. 0xFFFFFE   QP numbers: index i is QPN FIRST + (i + offset) mod COUNT
 *  0xFFFFFF               the multicast QPN (IB_MULTICAST_QPN), never a QP's
 * </pre>
 *
 * <p>The offset is drawn once per process ({@link Unpredictable}): Linux rxe numbers QPs from 0x11 in
 * every boot, and a jrdma JVM used to as well, so two clients started one after the other from one address
 * (one node GUID) announced the same first QPN and the IB CM took the second for a stale copy of the first
 * (IBTA 12.9.8.3.1). Indexes are handed out cyclically within {@link #WINDOW} (rxe's
 * {@code RXE_MAX_QP_INDEX}; every provider's {@code max_qp} fits), so a freed QPN is not reused before the
 * window has gone round and the QP tables stay bounded.
 */
public final class QpNumbers {
    /** The first QPN a QP can have (rxe: 0x11). */
    public static final int FIRST = 0x11;
    /** The last QPN a QP can have: 0xFFFFFF is the multicast QPN. */
    public static final int LAST = 0xFFFFFE;
    /** How many QPNs there are. */
    public static final int COUNT = LAST - FIRST + 1;
    /** How many indexes are handed out before they wrap: rxe's {@code RXE_MAX_QP_INDEX}, 0x20000. */
    public static final int WINDOW = 0x20000;
    /** This process's offset, in {@code [0, COUNT)}. */
    private static final int OFFSET = Unpredictable.nextInt(COUNT);

    private QpNumbers() {
    }

    /**
     * The QPN of index {@code i}.
     *
     * @param i an index in {@code [0, WINDOW)}
     * @return the QPN, in {@code [FIRST, LAST]}
     */
    public static int qpn(int i) {
        return FIRST + (int) ((i + (long) OFFSET) % COUNT);
    }

    /**
     * The index of {@code qpn}; allocation-free, for the data path.
     *
     * @param qpn any 32-bit value
     * @return the index, or -1 for a number that no QP of this process can have
     */
    public static int index(int qpn) {
        if (qpn < FIRST || qpn > LAST) {
            return -1;
        }
        int i = qpn - FIRST - OFFSET;
        if (i < 0) {
            i += COUNT;
        }
        return i < WINDOW ? i : -1;
    }
}
