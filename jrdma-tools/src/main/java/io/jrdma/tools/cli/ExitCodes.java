package io.jrdma.tools.cli;

/**
 * Exit codes shared by every jrdma tool, chosen like perftest and rdma-core's examples (0 on
 * success, non-zero otherwise) with bad usage told apart as picocli and most Unix tools do.
 */
public final class ExitCodes {

    /** The run completed and every check passed. */
    public static final int OK = 0;

    /**
     * The run failed: the peer was unreachable or refused the connection, went silent, broke the
     * protocol, or a verification failed.
     */
    public static final int FAILURE = 1;

    /** The command line was wrong: unknown flag, bad value, conflicting flags. */
    public static final int USAGE = 2;

    private ExitCodes() {
    }
}
