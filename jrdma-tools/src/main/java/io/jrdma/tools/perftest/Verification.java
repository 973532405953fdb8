package io.jrdma.tools.perftest;

/**
 * What a side found when it checked the data that landed on it ({@link PerfPattern}).
 *
 * @param applicable whether this side had data to check (e.g. a WRITE's active side has none)
 * @param ok whether every checked slot held what the peer sent
 * @param bytes bytes checked
 * @param slots message slots checked
 * @param crc32c the expected CRC32C of one slot (fetch-and-add: the expected counter sum)
 * @param detail what differed, or empty
 */
public record Verification(boolean applicable, boolean ok, long bytes, int slots, long crc32c, String detail) {

    /**
     * Nothing to check on this side.
     *
     * @return the outcome
     */
    public static Verification notApplicable() {
        return new Verification(false, true, 0, 0, 0, "");
    }

    /**
     * Every slot matched.
     *
     * @param bytes bytes checked
     * @param slots slots checked
     * @param crc32c the CRC32C each slot had
     * @return the outcome
     */
    public static Verification passed(long bytes, int slots, long crc32c) {
        return new Verification(true, true, bytes, slots, crc32c, "");
    }

    /**
     * A slot differed.
     *
     * @param bytes bytes checked before the difference
     * @param detail what differed
     * @return the outcome
     */
    public static Verification failed(long bytes, String detail) {
        return new Verification(true, false, bytes, 0, 0, detail);
    }
}
