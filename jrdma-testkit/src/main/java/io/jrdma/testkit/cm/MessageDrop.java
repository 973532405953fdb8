package io.jrdma.testkit.cm;

/**
 * A drop rule installed with {@link CmFixture#drop}: it loses matching messages until closed.
 */
public interface MessageDrop extends AutoCloseable {
    /** How many messages it has dropped so far. */
    int dropped();

    /** Stops dropping. */
    @Override
    void close();
}
