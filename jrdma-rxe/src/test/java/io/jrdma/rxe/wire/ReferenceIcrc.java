package io.jrdma.rxe.wire;

import io.jrdma.internal.roce.Icrc;
import java.util.zip.CRC32;

/**
 * A deliberately naive ICRC for cross-checking {@link Icrc}: builds rxe's masked pseudo-header as a
 * byte array field by field (rxe_icrc.c, interop README "ICRC recipe") and runs one CRC32 over it.
 */
final class ReferenceIcrc {
    private ReferenceIcrc() {
    }

    /** ICRC of a UDP payload (BTH..ICRC) over IPv4 with the given header fields. */
    static int ipv4(byte[] payload, int src, int dst, int sport, int dport, int id, int flags) {
        int len = payload.length;
        byte[] b = new byte[8 + 20 + 8 + len - 4];
        int i = 0;
        for (; i < 8; i++) {
            b[i] = (byte) 0xff;
        }
        int tot = 28 + len;
        int[] ip = {0x45, 0xff, tot >> 8, tot, id >> 8, id, flags >> 8, flags, 0xff, 17, 0xff, 0xff,
            src >>> 24, src >> 16, src >> 8, src, dst >>> 24, dst >> 16, dst >> 8, dst};
        for (int v : ip) {
            b[i++] = (byte) v;
        }
        int ulen = 8 + len;
        int[] udp = {sport >> 8, sport, dport >> 8, dport, ulen >> 8, ulen, 0xff, 0xff};
        for (int v : udp) {
            b[i++] = (byte) v;
        }
        System.arraycopy(payload, 0, b, i, len - 4);
        b[i + 4] = (byte) 0xff;
        CRC32 c = new CRC32();
        c.update(b);
        return (int) c.getValue();
    }

    /** ICRC of a UDP payload over IPv6 (addresses as 16-byte arrays). */
    static int ipv6(byte[] payload, byte[] src, byte[] dst, int sport, int dport) {
        int len = payload.length;
        byte[] b = new byte[8 + 40 + 8 + len - 4];
        int i = 0;
        for (; i < 8; i++) {
            b[i] = (byte) 0xff;
        }
        int ulen = 8 + len;
        int[] head = {0x6f, 0xff, 0xff, 0xff, ulen >> 8, ulen, 17, 0xff};
        for (int v : head) {
            b[i++] = (byte) v;
        }
        System.arraycopy(src, 0, b, i, 16);
        i += 16;
        System.arraycopy(dst, 0, b, i, 16);
        i += 16;
        int[] udp = {sport >> 8, sport, dport >> 8, dport, ulen >> 8, ulen, 0xff, 0xff};
        for (int v : udp) {
            b[i++] = (byte) v;
        }
        System.arraycopy(payload, 0, b, i, len - 4);
        b[i + 4] = (byte) 0xff;
        CRC32 c = new CRC32();
        c.update(b);
        return (int) c.getValue();
    }
}
