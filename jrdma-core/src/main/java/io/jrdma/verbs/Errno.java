package io.jrdma.verbs;

/**
 * The errno values jrdma reports, with Linux's numbers, so that a message or a status reads the
 * same as it would from libibverbs or librdmacm ({@code errno.h}, {@code asm-generic/errno*.h}).
 */
public enum Errno {
    /** Operation not permitted. */
    EPERM(1),
    /** No such file or directory (no such device, address or id). */
    ENOENT(2),
    /** Interrupted system call. */
    EINTR(4),
    /** I/O error. */
    EIO(5),
    /** Try again: a queue is full or a resource is busy for now. */
    EAGAIN(11),
    /** Out of memory or out of queue entries. */
    ENOMEM(12),
    /** Permission denied (memory access rights). */
    EACCES(13),
    /** Bad address. */
    EFAULT(14),
    /** Resource busy. */
    EBUSY(16),
    /** Already exists. */
    EEXIST(17),
    /** No such device. */
    ENODEV(19),
    /** Invalid argument. */
    EINVAL(22),
    /** Value out of range. */
    ERANGE(34),
    /** No data available. */
    ENODATA(61),
    /** Protocol error. */
    EPROTO(71),
    /** Bad message. */
    EBADMSG(74),
    /** Message too long. */
    EMSGSIZE(90),
    /** Protocol not supported. */
    EPROTONOSUPPORT(93),
    /** Operation not supported. */
    EOPNOTSUPP(95),
    /** Address family not supported. */
    EAFNOSUPPORT(97),
    /** Address already in use. */
    EADDRINUSE(98),
    /** Cannot assign requested address. */
    EADDRNOTAVAIL(99),
    /** Network is down. */
    ENETDOWN(100),
    /** Network is unreachable. */
    ENETUNREACH(101),
    /** Connection aborted. */
    ECONNABORTED(103),
    /** Connection reset by peer. */
    ECONNRESET(104),
    /** No buffer space available. */
    ENOBUFS(105),
    /** Transport endpoint is already connected. */
    EISCONN(106),
    /** Transport endpoint is not connected. */
    ENOTCONN(107),
    /** Connection timed out. */
    ETIMEDOUT(110),
    /** Connection refused. */
    ECONNREFUSED(111),
    /** Host is unreachable. */
    EHOSTUNREACH(113),
    /** Operation already in progress. */
    EALREADY(114),
    /** Operation now in progress. */
    EINPROGRESS(115);

    private final int code;

    Errno(int code) {
        this.code = code;
    }

    /** The positive Linux errno number. */
    public int code() {
        return code;
    }

    /**
     * The status value the kernel would report for this error: {@code -code()}. Linux: the negative errno the kernel
     * returns and rdma_cm puts in {@code rdma_cm_event.status}.
     */
    public int status() {
        return -code;
    }

    /** The errno with this positive or negative number, or {@code null} if jrdma does not use it. */
    public static Errno of(int code) {
        int c = Math.abs(code);
        for (Errno e : values()) {
            if (e.code == c) {
                return e;
            }
        }
        return null;
    }
}
