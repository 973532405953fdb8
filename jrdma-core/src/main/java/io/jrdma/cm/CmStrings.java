package io.jrdma.cm;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.TransportType;

/**
 * The connection manager's human-readable strings: {@code rdma_event_str}, {@code rdma_reject_msg}
 * (with {@code ibcm_reject_msg} and {@code iwcm_reject_msg} under it) and
 * {@code rdma_is_consumer_reject}.
 */
public final class CmStrings {
    private CmStrings() {
    }

    /** {@code rdma_event_str}. */
    public static String eventStr(CmEventType type) {
        return type.str();
    }

    /** {@code ibcm_reject_msg}: the text of an IB reject reason. Linux: {@code ibcm_reject_msg}. */
    public static String ibRejectMsg(int reason) {
        RejectReason r = RejectReason.of(reason);
        return r == null ? "unrecognized reason" : r.message();
    }

    /** {@code iwcm_reject_msg}: the text of an iWARP CONNECT_REPLY status. */
    public static String iwRejectMsg(int status) {
        Errno e = Errno.of(status);
        if (e == null) {
            return "unrecognized reason";
        }
        return switch (e) {
            case ECONNRESET -> "reset by remote host";
            case ECONNREFUSED -> "refused by remote application";
            case ETIMEDOUT -> "setup timeout";
            default -> "unrecognized reason";
        };
    }

    /** {@code rdma_reject_msg}: the text of a REJECTED status on the id's transport. */
    public static String rejectMsg(CmId id, int status) {
        return transportOf(id) == TransportType.IWARP ? iwRejectMsg(status) : ibRejectMsg(status);
    }

    /**
     * {@code rdma_is_consumer_reject}: whether a REJECTED status came from the remote application's
     * reject (IB: reason 28; iWARP: -ECONNREFUSED) rather than a timeout, a stale connection or a
     * protocol failure. jrdma's iWARP transport reports an MPA reject (R bit) as -ECONNREFUSED, so it
     * counts as a consumer reject as SPEC rule 11 requires; a TCP reset or a close before the reply is
     * -ECONNRESET. (Linux siw reports the MPA reject itself as -ECONNRESET.)
     */
    public static boolean isConsumerReject(CmId id, int status) {
        if (transportOf(id) == TransportType.IWARP) {
            return status == Errno.ECONNREFUSED.status();
        }
        return status == RejectReason.CONSUMER_DEFINED.value();
    }

    private static TransportType transportOf(CmId id) {
        return id.device() == null ? TransportType.IB : id.device().transport();
    }
}
