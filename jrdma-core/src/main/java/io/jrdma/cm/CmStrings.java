package io.jrdma.cm;

import io.jrdma.internal.net.Ip;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.TransportType;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The connection manager's human-readable strings: {@code rdma_event_str}, {@code rdma_reject_msg}
 * (with {@code ibcm_reject_msg} and {@code iwcm_reject_msg} under it),
 * {@code rdma_is_consumer_reject}, and addresses and endpoints written as jrdma's messages and tools
 * write them ({@code inet_ntop}'s text, which {@link InetAddress#getHostAddress()} does not give for
 * IPv6).
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

    /**
     * An address as a user writes it, and as {@code inet_ntop} does: IPv4 dotted, IPv6 in the RFC 5952 form
     * ({@code ::1}, {@code fd00:4::15}: lower case, the longest run of zero groups as {@code ::}), an
     * IPv4-mapped one as {@code ::ffff:10.0.4.2}, a scope as {@code %name} or {@code %id}.
     *
     * @param address the address
     * @return its text
     * @throws IllegalArgumentException if {@code address} is null
     */
    public static String address(InetAddress address) {
        if (address == null) {
            throw new IllegalArgumentException("address must not be null");
        }
        return Ip.literal(address);
    }

    /**
     * An endpoint as a user writes it: {@code 10.0.4.2:7174}, {@code [fd00:4::2]:7174} (an IPv6 address in
     * brackets, RFC 5952 section 6), an unresolved one by its host name ({@code host:7174}).
     *
     * @param endpoint the endpoint
     * @return its text
     * @throws IllegalArgumentException if {@code endpoint} is null
     */
    public static String endpoint(InetSocketAddress endpoint) {
        if (endpoint == null) {
            throw new IllegalArgumentException("endpoint must not be null");
        }
        return Ip.endpoint(endpoint);
    }

    private static TransportType transportOf(CmId id) {
        return id.device() == null ? TransportType.IB : id.device().transport();
    }
}
