package io.jrdma.tools.cli;

/**
 * A run-time failure a tool reports as one line on stderr and a non-zero exit code: an unreachable
 * or refusing peer, a peer that went silent or broke the protocol, a failed verification. Also the
 * exception the in-process APIs throw for the same conditions.
 */
public final class ToolFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * Creates a failure with {@link ExitCodes#FAILURE}.
     *
     * @param message one line saying what went wrong, without the tool name
     */
    public ToolFailure(String message) {
        this(message, ExitCodes.FAILURE, null);
    }

    /**
     * Creates a failure with {@link ExitCodes#FAILURE} and a cause.
     *
     * @param message one line saying what went wrong, without the tool name
     * @param cause the underlying exception
     */
    public ToolFailure(String message, Throwable cause) {
        this(message, ExitCodes.FAILURE, cause);
    }

    /**
     * Creates a failure with an explicit exit code.
     *
     * @param message one line saying what went wrong, without the tool name
     * @param exitCode the process exit code, non-zero
     * @param cause the underlying exception, or null
     */
    public ToolFailure(String message, int exitCode, Throwable cause) {
        super(message, cause);
        if (exitCode == ExitCodes.OK) {
            throw new IllegalArgumentException("a failure needs a non-zero exit code");
        }
        this.exitCode = exitCode;
    }

    /**
     * The exit code the tool ends with.
     *
     * @return a non-zero code
     */
    public int exitCode() {
        return exitCode;
    }
}
