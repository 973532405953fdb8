package io.jrdma.cluster;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one side of one connection counted, as a host reports it on its {@code CONN} line and the
 * coordinator reads it back ({@link #parse(String)}). Written by the connection's own thread only; read
 * after that thread ended.
 *
 * @see HostMain
 */
final class ConnStats {
    /** The client side: it posts WRITE, SEND and READ. */
    static final char CLIENT = 'c';
    /** The server side: it receives the SENDs and checks the WRITEs they announce. */
    static final char SERVER = 's';

    final char role;
    final long tag;
    final String peer;
    final String transport;
    /** Whether the connection reached ESTABLISHED. */
    boolean established;
    /** Work requests posted (send queue for a client, receive queue for a server). */
    long posted;
    /** Completions with status SUCCESS. */
    long ok;
    /** Completions with an error status (flushes included). */
    long errors;
    /** Posted work requests that never completed within the completion timeout. */
    long lost;
    /** Completions out of posting order, or messages out of sequence (a duplicate or a gap). */
    long order;
    /** Bytes that did not verify. */
    long corrupt;
    /** Bytes moved and verified (WRITE + SEND + READ on a client, WRITE + SEND on a server). */
    long bytes;
    /** SENDs posted (client). */
    long sendsPosted;
    /** SENDs completed successfully (client) or received and verified (server). */
    long sends;
    /** Rounds whose READ completed after their SEND, which proves the SEND landed (client). */
    long confirmed;
    /** Whether the connection ended on an error completion or a lost one. */
    boolean endedWithError;
    /** Whether the server closed the connection itself at stop, its client never having disconnected. */
    boolean abandoned;
    /** Rounds completed after the coordinator's mark (client). */
    long afterMark;

    ConnStats(char role, long tag, String peer, String transport) {
        this.role = role;
        this.tag = tag;
        this.peer = peer;
        this.transport = transport;
    }

    /** The client host of connection {@code tag}. */
    static int clientHost(long tag) {
        return (int) (tag >>> 52);
    }

    /**
     * The tag of a connection: client host (12 bits), the client's incarnation (8), transport (4), server host
     * (12), queue pair index (12) and generation (16, one per reconnect).
     */
    static long tag(int host, int incarnation, int transport, int peer, int qp, int generation) {
        return ((long) (host & 0xFFF) << 52) | ((long) (incarnation & 0xFF) << 44) | ((long) (transport & 0xF) << 40)
                | ((long) (peer & 0xFFF) << 28) | ((long) (qp & 0xFFF) << 16) | (generation & 0xFFFF);
    }

    /** The number of work requests whose completion count is wrong: posted minus completed, either way. */
    long unaccounted() {
        return posted - ok - errors - lost;
    }

    /**
     * Whether a client's and a server's record of one connection agree end to end: after a clean end the
     * server verified every SEND the client posted and saw complete; after an error at least every SEND a
     * later READ proved landed, and none that was not posted.
     */
    static boolean agree(ConnStats client, ConnStats server) {
        boolean clean = !client.endedWithError && !server.endedWithError && !server.abandoned;
        return clean ? server.sends == client.sends && client.sends == client.sendsPosted
                : client.confirmed <= server.sends && server.sends <= client.sendsPosted;
    }

    /**
     * Whether this record breaks the completion rules: a work request completed other than once (or out
     * of order), or an error where none is excused. A server's receives flush when its client disconnects:
     * those errors are normal; an error ending, or a connection abandoned, is not unless {@code excused}
     * (a disrupted host is at one end).
     */
    boolean breaksCompletionRules(boolean excused) {
        if (unaccounted() != 0 || lost != 0 || order != 0) {
            return true;
        }
        boolean failed = role == CLIENT ? errors > 0 : endedWithError;
        return !excused && (failed || abandoned);
    }

    /** The {@code CONN} line. */
    String line() {
        return String.format(Locale.ROOT, "CONN role=%c tag=%016x peer=%s transport=%s est=%d posted=%d ok=%d err=%d "
                + "lost=%d order=%d corrupt=%d bytes=%d sendsPosted=%d sends=%d confirmed=%d endErr=%d abandoned=%d "
                + "afterMark=%d",
                role, tag, peer, transport, established ? 1 : 0, posted, ok, errors, lost, order, corrupt, bytes,
                sendsPosted, sends, confirmed, endedWithError ? 1 : 0, abandoned ? 1 : 0, afterMark);
    }

    /** Reads a {@link #line()} back. */
    static ConnStats parse(String line) {
        Map<String, String> f = fields(line);
        ConnStats s = new ConnStats(f.get("role").charAt(0), Long.parseUnsignedLong(f.get("tag"), 16), f.get("peer"),
                f.get("transport"));
        s.established = "1".equals(f.get("est"));
        s.posted = Long.parseLong(f.get("posted"));
        s.ok = Long.parseLong(f.get("ok"));
        s.errors = Long.parseLong(f.get("err"));
        s.lost = Long.parseLong(f.get("lost"));
        s.order = Long.parseLong(f.get("order"));
        s.corrupt = Long.parseLong(f.get("corrupt"));
        s.bytes = Long.parseLong(f.get("bytes"));
        s.sendsPosted = Long.parseLong(f.get("sendsPosted"));
        s.sends = Long.parseLong(f.get("sends"));
        s.confirmed = Long.parseLong(f.get("confirmed"));
        s.endedWithError = "1".equals(f.get("endErr"));
        s.abandoned = "1".equals(f.get("abandoned"));
        s.afterMark = Long.parseLong(f.get("afterMark"));
        return s;
    }

    /** The {@code key=value} fields of a report line (the first word, its kind, is skipped). */
    static Map<String, String> fields(String line) {
        Map<String, String> f = new TreeMap<>();
        for (String w : line.trim().split("\\s+")) {
            int eq = w.indexOf('=');
            if (eq > 0) {
                f.put(w.substring(0, eq), w.substring(eq + 1));
            }
        }
        return f;
    }
}
