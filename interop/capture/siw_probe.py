#!/usr/bin/env python3
"""FPDU-level iWARP probe against real Linux siw in the jrdma interop rig (stdlib only).

Written for jrdma-siw's golden-byte fixtures: it speaks MPA (RFC 5044 + RFC 6581), DDP (RFC 5041)
and RDMAP (RFC 5040) byte by byte, plays the rping protocol (rdma-core
librdmacm/examples/rping.c) against the guest's rping, and provokes error paths
(markers, bad revision, bad key, unknown STag, bad MSN/QN, bad CRC, TERMINATEs in both layouts).

Client scenarios (the guest runs `rping -s -P -a 10.0.2.15 -p 7174 -v -S 65535`, the rig forwards
host 127.0.0.1:PORT to it):
    siw_probe.py client --port 17174 SCENARIO [SCENARIO ...]
Server scenarios (the guest runs `rping -c -a 10.0.2.2 -p PORT ...` towards this host listener):
    siw_probe.py server --port 17175 SCENARIO
Every socket operation is bounded by --timeout. The probe prints each frame it sends or receives
as hex with a one-line decode, and exits non-zero when a scenario's expectation failed.
"""
import argparse
import socket
import struct
import sys
import time

MPA_REQ_KEY, MPA_REP_KEY = b"MPA ID Req Frame", b"MPA ID Rep Frame"
F_MARKERS, F_CRC, F_REJECT, F_ENHANCED = 0x80, 0x40, 0x20, 0x10      # first byte of the MPA "bits"
OP_WRITE, OP_READ_REQ, OP_READ_RESP, OP_SEND, OP_SEND_INV, OP_SEND_SE, OP_SEND_SE_INV, OP_TERMINATE = range(8)
OP_NAMES = ["WRITE", "READ_REQ", "READ_RESP", "SEND", "SEND_INV", "SEND_SE", "SEND_SE_INV", "TERMINATE"]
HDR_LEN = {OP_WRITE: 16, OP_READ_REQ: 48, OP_READ_RESP: 16, OP_SEND: 20, OP_SEND_INV: 20,
           OP_SEND_SE: 20, OP_SEND_SE_INV: 20, OP_TERMINATE: 24}  # incl. the 2-byte MPA length
TAGGED, LAST, VERSIONS = 0x8000, 0x4000, 0x0140                     # DDP version 1, RDMAP version 1


# --- CRC32c (Castagnoli, reflected polynomial 0x82F63B78), as java.util.zip.CRC32C computes it ----
def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


CRC_TABLE = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def hexs(b):
    return b.hex()


def log(msg):
    print("%s %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


# --- MPA request/reply ------------------------------------------------------------------------
def mpa_frame(key, flags, rev, v2=None, pdata=b""):
    body = b""
    if v2 is not None:
        body += struct.pack(">HH", v2[0], v2[1])
    body += pdata
    return key + bytes([flags, rev]) + struct.pack(">H", len(body)) + body


def parse_mpa(b):
    f, rev, pdl = b[16], b[17], struct.unpack(">H", b[18:20])[0]
    s = "key=%r M=%d C=%d R=%d H=%d res=0x%x rev=%d pd_len=%d" % (
        b[:16], f >> 7 & 1, f >> 6 & 1, f >> 5 & 1, f >> 4 & 1, f & 0xF, rev, pdl)
    pd = b[20:]
    if f & F_ENHANCED and len(pd) >= 4:
        ird, ord_ = struct.unpack(">HH", pd[:4])
        s += " IRD=%d P2P=%d SEND_RTR=%d ORD=%d WRITE_RTR=%d READ_RTR=%d" % (
            ird & 0x3FFF, ird >> 15, ird >> 14 & 1, ord_ & 0x3FFF, ord_ >> 15, ord_ >> 14 & 1)
        pd = pd[4:]
    if pd:
        s += " pdata=%s" % hexs(pd)
    return s


# --- FPDUs ------------------------------------------------------------------------------------
def ctrl(op, tagged=False, last=True):
    return (TAGGED if tagged else 0) | (LAST if last else 0) | VERSIONS | op


def fpdu(hdr_after_len, payload=b"", crc_on=False, crc_order="<"):
    """hdr_after_len = DDP/RDMAP header without the 2-byte MPA length; returns the whole FPDU."""
    ulpdu = hdr_after_len + payload
    body = struct.pack(">H", len(ulpdu)) + ulpdu
    body += b"\0" * (-len(body) & 3)
    crc = struct.pack(crc_order + "I", crc32c(body)) if crc_on else b"\0\0\0\0"
    return body + crc


def untagged_hdr(op, qn, msn, mo, rsvd_or_inv=0, last=True):
    return struct.pack(">HIIII", ctrl(op, False, last), rsvd_or_inv, qn, msn, mo)


def tagged_hdr(op, stag, to, last=True):
    return struct.pack(">HIQ", ctrl(op, True, last), stag, to)


def term_ctrl_rfc(layer, etype, ecode, m, d, r):
    """RFC 5040 4.8: Layer(4) EType(4) ErrorCode(8) M D R Reserved(13), big-endian bit order."""
    return bytes([(layer << 4) | etype, ecode, (m << 7) | (d << 6) | (r << 5), 0])


def term_ctrl_siw(layer, etype, ecode, m, d, r):
    """What siw's __LITTLE_ENDIAN_BITFIELD struct iwarp_terminate yields on x86 (to be verified)."""
    return bytes([layer | (etype << 4), ecode, m | (d << 1) | (r << 2), 0])


def describe_fpdu(b):
    ln, c = struct.unpack(">HH", b[:4])
    op = c & 0xF
    s = "mpa_len=%d ctrl=0x%04x %s T=%d L=%d dv=%d rv=%d" % (
        ln, c, OP_NAMES[op] if op < len(OP_NAMES) else "opcode%d" % op, c >> 15, c >> 14 & 1, c >> 8 & 3,
        c >> 6 & 3)
    if op >= len(OP_NAMES):
        return s
    if c & TAGGED:
        stag, to = struct.unpack(">IQ", b[4:16])
        s += " stag=0x%08x to=0x%x payload=%d" % (stag, to, ln + 2 - 16)
    else:
        rsvd, qn, msn, mo = struct.unpack(">IIII", b[4:20])
        s += " rsvd/inv=0x%08x qn=%d msn=%d mo=%d" % (rsvd, qn, msn, mo)
        if op == OP_READ_REQ:
            sk, sto, size, src, srcto = struct.unpack(">IQIIQ", b[20:48])
            s += " sink_stag=0x%08x sink_to=0x%x size=%d src_stag=0x%08x src_to=0x%x" % (sk, sto, size, src, srcto)
        elif op == OP_TERMINATE:
            t = b[20:24]
            s += " term_ctrl=%s [rfc: layer=%d etype=%d ecode=%d m=%d d=%d r=%d] [siw-le: layer=%d etype=%d " \
                 "ecode=%d m=%d d=%d r=%d] copied=%s" % (
                     hexs(t), t[0] >> 4, t[0] & 15, t[1], t[2] >> 7, t[2] >> 6 & 1, t[2] >> 5 & 1,
                     t[0] & 15, t[0] >> 4, t[1], t[2] & 1, t[2] >> 1 & 1, t[2] >> 2 & 1, hexs(b[24:ln + 2]))
        else:
            s += " payload=%d" % (ln + 2 - 20)
    return s


class Link:
    """One TCP connection carrying MPA then FPDUs; all reads bounded by a deadline."""

    def __init__(self, sock, timeout):
        self.s, self.timeout, self.crc_on, self.crc_order = sock, timeout, False, "<"
        self.buf = b""
        self.crc_checked = {"le": 0, "be": 0, "zero": 0, "bad": 0}

    def recv_exact(self, n, timeout=None):
        deadline = time.time() + (timeout or self.timeout)
        while len(self.buf) < n:
            left = deadline - time.time()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                return None
            except ConnectionResetError:
                log("  <- RST")
                return None
            if not d:
                log("  <- EOF (after %d buffered bytes)" % len(self.buf))
                return None
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, b, what):
        self.s.sendall(b)
        log("  -> %s (%d bytes) %s" % (what, len(b), hexs(b) if len(b) <= 96 else hexs(b[:96]) + "..."))

    def recv_mpa(self, timeout=None):
        h = self.recv_exact(20, timeout)
        if h is None:
            return None
        pdl = struct.unpack(">H", h[18:20])[0]
        pd = self.recv_exact(pdl) if pdl else b""
        if pd is None:
            return None
        b = h + pd
        log("  <- MPA %s (%d bytes) %s" % (parse_mpa(b), len(b), hexs(b)))
        return b

    def recv_fpdu(self, timeout=None):
        h = self.recv_exact(2, timeout)
        if h is None:
            return None
        ln = struct.unpack(">H", h)[0]
        rest = self.recv_exact(ln + (-(ln + 2) & 3) + 4)
        if rest is None:
            return None
        b = h + rest
        body, crc = b[:-4], b[-4:]
        c = crc32c(body)
        if crc == b"\0\0\0\0":
            kind = "zero"
        elif crc == struct.pack("<I", c):
            kind = "le"
        elif crc == struct.pack(">I", c):
            kind = "be"
        else:
            kind = "bad"
        self.crc_checked[kind] += 1
        log("  <- FPDU %s crc=%s(%s) (%d bytes) %s" % (describe_fpdu(b), hexs(crc), kind, len(b),
                                                       hexs(b) if len(b) <= 96 else hexs(b[:96]) + "..."))
        return b

    def send_fpdu(self, hdr, payload=b"", what="FPDU"):
        b = fpdu(hdr, payload, self.crc_on, self.crc_order)
        self.send(b, "%s %s" % (what, describe_fpdu(b)))
        return b

    def drain(self, timeout=2.0):
        """Read what else arrives until EOF/RST/timeout; decode as FPDUs when aligned."""
        frames = []
        while True:
            f = self.recv_fpdu(timeout)
            if f is None:
                break
            frames.append(f)
        return frames


def opcode(b):
    return struct.unpack(">H", b[2:4])[0] & 0xF


# --- rping protocol pieces (rping.c: struct rping_rdma_info { be64 buf; be32 rkey; be32 size; }) ----
PROBE_START_ADDR, PROBE_START_RKEY = 0x00007F0000010000, 0x00000A01   # what we advertise (any value)
PROBE_SINK_ADDR, PROBE_SINK_RKEY = 0x00007F0000020000, 0x00000B02


def rping_info(addr, rkey, size):
    return struct.pack(">QII", addr, rkey, size)


def ping_data(size):
    """rping_test_client's buffer: "rdma-ping-0: " then A..z cycling, NUL-terminated."""
    b = bytearray(b"rdma-ping-0: ")
    c = 65
    while len(b) < size:
        b.append(c)
        c = 65 if c >= 122 else c + 1
    b = b[:size]
    b[-1] = 0
    return bytes(b)


def connect(port, timeout, src_port=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            s = socket.socket()
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if src_port:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", src_port))
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            return s
        except OSError as e:
            log("  connect: %s; retrying" % e)
            s.close()
            time.sleep(0.5)
    raise SystemExit("no connection to 127.0.0.1:%d" % port)


def client_mpa(a, flags=F_ENHANCED, rev=2, key=MPA_REQ_KEY, v2=(1, 1), pdata=b""):
    """Open a connection (from this scenario's source port) and send an MPA request; return (link, reply)."""
    s = connect(a.port, a.timeout, a.src_port)
    link = Link(s, a.timeout)
    req = mpa_frame(key, flags, rev, v2 if flags & F_ENHANCED else None, pdata)
    link.send(req, "MPA request " + parse_mpa(req))
    rep = link.recv_mpa()
    if rep is not None and a.settle:
        # siw 6.1 siw_accept() sends the reply before it hands the socket's data_ready to the QP: an
        # FPDU arriving in between stays unread until more data comes (seen under TCG). Wait a bit.
        time.sleep(a.settle)
    return link, rep


def rping_client_round(link, size, read_resp_split, crc_expect):
    """One rping iteration as the client: read-adv SEND, answer the READ, write-adv SEND, take the WRITE."""
    msn = 1
    ok = True
    link.send_fpdu(untagged_hdr(OP_SEND, 0, msn, 0), rping_info(PROBE_START_ADDR, PROBE_START_RKEY, size),
                   "SEND read-adv")
    msn += 1
    rr = link.recv_fpdu()
    if rr is None or opcode(rr) != OP_READ_REQ:
        log("  !! expected an RDMA READ request")
        return False
    sink_stag, sink_to, rsize, src_stag, src_to = struct.unpack(">IQIIQ", rr[20:48])
    ok &= (rsize == size and src_stag == PROBE_START_RKEY and src_to == PROBE_START_ADDR)
    data = ping_data(rsize)
    off = 0
    for i, chunk in enumerate(read_resp_split(rsize)):
        last = off + chunk == rsize
        link.send_fpdu(tagged_hdr(OP_READ_RESP, sink_stag, sink_to + off, last), data[off:off + chunk],
                       "READ_RESP #%d" % i)
        off += chunk
    go = link.recv_fpdu()
    if go is None or opcode(go) != OP_SEND:
        log("  !! expected the go-ahead SEND after the READ")
        return False
    link.send_fpdu(untagged_hdr(OP_SEND, 0, msn, 0), rping_info(PROBE_SINK_ADDR, PROBE_SINK_RKEY, size),
                   "SEND write-adv")
    got, writes = b"", 0
    while True:
        w = link.recv_fpdu()
        if w is None:
            log("  !! connection ended inside the WRITE")
            return False
        if opcode(w) == OP_WRITE:
            ln = struct.unpack(">H", w[:2])[0]
            got += w[16:16 + ln + 2 - 16]
            writes += 1
            if struct.unpack(">H", w[2:4])[0] & LAST:
                break
        else:
            log("  !! unexpected opcode %d while waiting for the WRITE" % opcode(w))
            return False
    exp = data[:data.index(0) + 1]
    log("  WRITE of %d bytes in %d FPDU(s), equals the READ data up to its NUL: %s" % (len(got), writes, got == exp))
    ok &= got == exp
    go2 = link.recv_fpdu()
    ok &= go2 is not None and opcode(go2) == OP_SEND
    log("  CRC kinds seen on siw's FPDUs: %s (expected %s)" % (link.crc_checked, crc_expect))
    if crc_expect == "zero":
        ok &= link.crc_checked["zero"] > 0 and link.crc_checked["le"] + link.crc_checked["be"] + \
            link.crc_checked["bad"] == 0
    else:
        ok &= link.crc_checked[crc_expect] > 0 and link.crc_checked["bad"] == 0
    return ok


def split_mss(total, first=None, each=1428):
    out = []
    if first:
        out.append(min(first, total))
    while sum(out) < total:
        out.append(min(each, total - sum(out)))
    return out


def close_graceful(link):
    link.s.shutdown(socket.SHUT_WR)
    rest = link.drain(3.0)
    log("  after our FIN: %d more FPDU(s), %d stray bytes" % (len(rest), len(link.buf)))
    link.s.close()


# --- client scenarios -------------------------------------------------------------------------
def sc_rping_small(a):
    link, rep = client_mpa(a)
    if rep is None or rep[:16] != MPA_REP_KEY:
        return False
    ok = rping_client_round(link, 64, lambda n: [n], "zero")
    close_graceful(link)
    return ok


def sc_rping_large(a):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    # READ response: one FPDU bigger than an MSS, then MSS-sized ones (siw's receiver takes any size)
    ok = rping_client_round(link, a.large, lambda n: split_mss(n, first=4000), "zero")
    close_graceful(link)
    return ok


def sc_rping_crc(a):
    link, rep = client_mpa(a, flags=F_ENHANCED | F_CRC)
    if rep is None or not rep[16] & F_CRC:
        log("  !! siw did not echo the C bit")
        return False
    link.crc_on, link.crc_order = True, "<"
    ok = rping_client_round(link, 64, lambda n: [n], "le")
    close_graceful(link)
    return ok


def sc_rping_crc_large(a):
    link, rep = client_mpa(a, flags=F_ENHANCED | F_CRC)
    if rep is None or not rep[16] & F_CRC:
        return False
    link.crc_on = True
    ok = rping_client_round(link, 3000, lambda n: split_mss(n), "le")
    close_graceful(link)
    return ok


def expect_no_reply(a, **kw):
    link, rep = client_mpa(a, **kw)
    rest = link.buf
    log("  reply: %s; connection state: %s" % ("none" if rep is None else "got one", "closed"))
    link.s.close()
    return rep is None and not rest


def sc_mpa_markers(a):
    link, rep = client_mpa(a, flags=F_ENHANCED | F_MARKERS)
    ok = rep is not None and rep[:16] == MPA_REP_KEY and rep[16] & F_REJECT and not rep[16] & F_MARKERS
    more = link.recv_exact(1, 3.0)
    log("  after the reject: %s" % ("more bytes?!" if more else "EOF/timeout"))
    link.s.close()
    return bool(ok)


def sc_mpa_markers_v1(a):
    link, rep = client_mpa(a, flags=F_MARKERS, rev=1)
    ok = rep is not None and rep[16] & F_REJECT
    link.recv_exact(1, 3.0)
    link.s.close()
    return bool(ok)


def sc_mpa_rev3(a):
    return expect_no_reply(a, rev=3)


def sc_mpa_badkey(a):
    return expect_no_reply(a, key=b"MPA ID Bad Frame")


def sc_mpa_pd256(a):
    """PD_Length 256 = 4-byte v2 block + 252 bytes: the largest siw takes (MPA_MAX_PRIVDATA)."""
    link, rep = client_mpa(a, pdata=bytes(range(252)))
    ok = rep is not None and rep[:16] == MPA_REP_KEY and not rep[16] & F_REJECT
    link.s.close()
    return ok


def sc_mpa_pd257(a):
    """PD_Length 257: siw_recv_mpa_rr() gives -EPROTO before reading the private data."""
    return expect_no_reply(a, pdata=bytes(range(253)))


def sc_mpa_h_short(a, pd):
    """H set at revision 2 but PD_Length pd < 4: no room for the v2 block (siw_proc_mpareq, reject_conn)."""
    s = connect(a.port, a.timeout, a.src_port)
    link = Link(s, a.timeout)
    req = MPA_REQ_KEY + struct.pack(">BBH", F_ENHANCED, 2, pd) + bytes(range(1, pd + 1))
    link.send(req, "MPA request H, PD_Length %d" % pd)
    h = link.recv_exact(20)
    if h is not None:
        log("  <- MPA header %s: flags 0x%02x rev %d PD_Length %d" % (hexs(h), h[16], h[17],
                                                                     struct.unpack(">H", h[18:20])[0]))
    more = link.recv_exact(1, 3.0)
    log("  after the reply: %s" % ("more bytes?!" if more else "EOF/timeout"))
    link.s.close()
    return h is not None and h[:16] == MPA_REP_KEY and h[16] & F_REJECT


def sc_mpa_depths_huge(a):
    """v2 IRD/ORD 16383/16383, legal 14-bit values: siw_proc_mpareq caps them at 128 (SIW_MAX_*_QP)."""
    link, rep = client_mpa(a, v2=(0x3FFF, 0x3FFF))
    ok = rep is not None and rep[:16] == MPA_REP_KEY and not rep[16] & F_REJECT
    if ok:
        ird, ordv = struct.unpack(">HH", rep[20:24])
        log("  reply IRD %d ORD %d" % (ird & 0x3FFF, ordv & 0x3FFF))
    link.s.close()
    return ok


def sc_mpa_extra_data(a):
    """A request with 8 more bytes in the same segment (siw_recv_mpa_rr: "peer sent extra data")."""
    s = connect(a.port, a.timeout, a.src_port)
    link = Link(s, a.timeout)
    req = mpa_frame(MPA_REQ_KEY, F_ENHANCED, 2, (1, 1)) + b"\xee" * 8
    link.send(req, "MPA request + 8 bytes")
    rep = link.recv_mpa(3.0)
    log("  reply: %s" % ("none" if rep is None else hexs(rep)))
    link.s.close()
    return rep is None


def sc_mpa_v1(a):
    """Revision 1 (no v2 block): siw accepts and echoes revision 1."""
    link, rep = client_mpa(a, flags=0, rev=1)
    ok = rep is not None and rep[17] == 1 and rep[16] & F_REJECT == 0
    link.s.close()
    return ok


def sc_mpa_v2_pdata(a):
    """v2 with IRD/ORD 4/4, P2P + WRITE RTR and 8 bytes of ULP private data."""
    link, rep = client_mpa(a, v2=(0x8000 | 4, 0x8000 | 4), pdata=b"jrdma-pd")
    ok = rep is not None and rep[:16] == MPA_REP_KEY
    if ok:
        # P2P: siw waits for the RTR (a zero-length WRITE, STag 1? any; siw only needs an inbound FPDU)
        link.send_fpdu(tagged_hdr(OP_WRITE, 0, 0), b"", "RTR zero-length WRITE")
        ok = rping_client_round(link, 64, lambda n: [n], "zero")
    close_graceful(link)
    return ok


def terminate_after(link, frames_timeout=5.0):
    frames = link.drain(frames_timeout)
    terms = [f for f in frames if opcode(f) == OP_TERMINATE]
    log("  siw sent %d FPDU(s) after the error, %d TERMINATE(s)" % (len(frames), len(terms)))
    return terms


def sc_term_write_stag(a):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(tagged_hdr(OP_WRITE, 0xDEADBE01, 0x1000), b"x" * 24, "WRITE to unknown STag")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_write_stag_crc(a):
    link, rep = client_mpa(a, flags=F_ENHANCED | F_CRC)
    if rep is None:
        return False
    link.crc_on = True
    link.send_fpdu(tagged_hdr(OP_WRITE, 0xDEADBE01, 0x1000), b"x" * 24, "WRITE to unknown STag")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1 and link.crc_checked["le"] == 1


def sc_term_send_msn(a):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(untagged_hdr(OP_SEND, 0, 5, 0), rping_info(1, 2, 64), "SEND with MSN 5 (expected 1)")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_send_qn(a):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(untagged_hdr(OP_SEND, 3, 1, 0), rping_info(1, 2, 64), "SEND with QN 3")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_bad_crc(a):
    """CRC negotiated, but our first FPDU carries a wrong CRC: siw must answer LLP/MPA CRC error."""
    link, rep = client_mpa(a, flags=F_ENHANCED | F_CRC)
    if rep is None:
        return False
    b = fpdu(untagged_hdr(OP_SEND, 0, 1, 0), rping_info(1, 2, 64), True)
    b = b[:-4] + bytes(x ^ 0xFF for x in b[-4:])
    link.send(b, "SEND with inverted CRC " + describe_fpdu(b))
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_opcode(a):
    """RDMAP opcode 8 (not defined): siw answers RDMAP / remote operation / unexpected opcode."""
    link, rep = client_mpa(a)
    if rep is None:
        return False
    hdr = struct.pack(">HIIII", LAST | VERSIONS | 8, 0, 0, 1, 0)
    link.send_fpdu(hdr, b"", "opcode 8")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_read_stag(a):
    """READ request whose source STag is unknown: siw finds it while building the response (in tx)."""
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(untagged_hdr(OP_READ_REQ, 1, 1, 0) +
                   struct.pack(">IQIIQ", 0x00000C03, 0x7F0000030000, 32, 0xDEADBE02, 0x2000), b"",
                   "READ_REQ with unknown source STag")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_read_msn(a):
    """READ request with MSN 3 on QN 1 (expected 1): DDP untagged MSN range."""
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(untagged_hdr(OP_READ_REQ, 1, 3, 0) +
                   struct.pack(">IQIIQ", 0x00000C03, 0x7F0000030000, 32, 0x00000A01, 0x2000), b"",
                   "READ_REQ with MSN 3")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_ddp_version(a):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(struct.pack(">HIQ", TAGGED | LAST | 0x0240, 0x1234, 0), b"z" * 8, "WRITE with DDP version 2")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def sc_term_rdmap_version(a):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    link.send_fpdu(struct.pack(">HIIII", LAST | 0x0100 | OP_SEND, 0, 0, 1, 0), b"z" * 8, "SEND with RDMAP version 0")
    terms = terminate_after(link)
    link.s.close()
    return len(terms) == 1


def send_terminate(a, layout):
    link, rep = client_mpa(a)
    if rep is None:
        return False
    # Report "DDP / untagged buffer error / invalid MSN range" about a made-up SEND header, with the
    # M and D flags and the DDP segment length + 18-byte untagged DDP header copied (20 bytes).
    tc = (term_ctrl_rfc if layout == "rfc" else term_ctrl_siw)(1, 2, 3, 1, 1, 0)
    copied = struct.pack(">H", 16) + untagged_hdr(OP_SEND, 0, 7, 0)
    hdr = untagged_hdr(OP_TERMINATE, 2, 1, 0) + tc
    link.send_fpdu(hdr, copied, "TERMINATE (%s layout)" % layout)
    rest = link.drain(3.0)
    log("  siw answered with %d FPDU(s)" % len(rest))
    link.s.close()
    return True


def sc_term_to_siw_rfc(a):
    return send_terminate(a, "rfc")


def sc_term_to_siw_siw(a):
    return send_terminate(a, "siw")


CLIENT_SCENARIOS = {
    "rping-small": sc_rping_small, "rping-large": sc_rping_large, "rping-crc": sc_rping_crc,
    "rping-crc-large": sc_rping_crc_large, "mpa-markers": sc_mpa_markers, "mpa-markers-v1": sc_mpa_markers_v1,
    "mpa-rev3": sc_mpa_rev3, "mpa-badkey": sc_mpa_badkey, "mpa-v1": sc_mpa_v1, "mpa-pd256": sc_mpa_pd256, "mpa-pd257": sc_mpa_pd257, "mpa-v2-pdata": sc_mpa_v2_pdata,
    "mpa-h-short0": lambda a: sc_mpa_h_short(a, 0), "mpa-h-short2": lambda a: sc_mpa_h_short(a, 2),
    "mpa-depths-huge": sc_mpa_depths_huge, "mpa-extra-data": sc_mpa_extra_data,
    "term-write-stag": sc_term_write_stag, "term-write-stag-crc": sc_term_write_stag_crc,
    "term-send-msn": sc_term_send_msn, "term-send-qn": sc_term_send_qn, "term-bad-crc": sc_term_bad_crc,
    "term-opcode": sc_term_opcode, "term-read-stag": sc_term_read_stag, "term-read-msn": sc_term_read_msn,
    "term-ddp-version": sc_term_ddp_version, "term-rdmap-version": sc_term_rdmap_version, "term-to-siw-rfc": sc_term_to_siw_rfc, "term-to-siw-siw": sc_term_to_siw_siw,
}


# --- server scenarios: the guest's rping -c connects to us ------------------------------------
def sv_accept(a):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", a.port))
    ls.listen(1)
    ls.settimeout(a.timeout)
    log("listening on 127.0.0.1:%d" % a.port)
    s, peer = ls.accept()
    ls.close()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    log("accepted %s:%d" % peer)
    link = Link(s, a.timeout)
    req = link.recv_mpa()
    return link, req


def sv_rping(a, crc=False):
    """Be rping's server: take the read-adv, READ the client's buffer, go-ahead, WRITE it back.
    crc: set the C bit in our reply although siw did not ask (RFC 5044: CRC is on if either side asks)."""
    link, req = sv_accept(a)
    if req is None:
        return False
    flags = F_ENHANCED | (req[16] & F_CRC) | (F_CRC if crc else 0)
    link.crc_on = bool(flags & F_CRC)
    rep = mpa_frame(MPA_REP_KEY, flags, 2, (1, 1))
    link.send(rep, "MPA reply " + parse_mpa(rep))
    adv = link.recv_fpdu()
    if adv is None or opcode(adv) != OP_SEND:
        return False
    addr, rkey, size = struct.unpack(">QII", adv[20:36])
    # Our READ: sink = a made-up local STag/TO, source = the client's start buffer
    sink_stag, sink_to = 0x00000C03, 0x00007F0000030000
    link.send_fpdu(untagged_hdr(OP_READ_REQ, 1, 1, 0) + struct.pack(">IQIIQ", sink_stag, sink_to, size, rkey, addr),
                   b"", "READ_REQ")
    data, n = b"", 0
    while True:
        r = link.recv_fpdu()
        if r is None or opcode(r) != OP_READ_RESP:
            return False
        ln = struct.unpack(">H", r[:2])[0]
        data += r[16:ln + 2]
        n += 1
        if struct.unpack(">H", r[2:4])[0] & LAST:
            break
    log("  READ response: %d bytes in %d FPDU(s)" % (len(data), n))
    link.send_fpdu(untagged_hdr(OP_SEND, 0, 1, 0), b"\0" * 16, "SEND go-ahead")
    adv2 = link.recv_fpdu()
    if adv2 is None or opcode(adv2) != OP_SEND:
        return False
    addr2, rkey2, size2 = struct.unpack(">QII", adv2[20:36])
    wlen = data.index(0) + 1
    off, i = 0, 0
    while off < wlen:
        chunk = min(1428, wlen - off)
        link.send_fpdu(tagged_hdr(OP_WRITE, rkey2, addr2 + off, off + chunk == wlen), data[off:off + chunk],
                       "WRITE #%d" % i)
        off += chunk
        i += 1
    link.send_fpdu(untagged_hdr(OP_SEND, 0, 2, 0), b"\0" * 16, "SEND go-ahead")
    rest = link.drain(5.0)
    log("  after the round: %d FPDU(s) more, then EOF/timeout" % len(rest))
    link.s.close()
    return True


def sv_reply(a, rep_bytes):
    link, req = sv_accept(a)
    if req is None:
        return False
    link.send(rep_bytes, "MPA reply " + parse_mpa(rep_bytes))
    rest = link.drain(5.0)
    log("  siw sent %d FPDU(s) after our reply" % len(rest))
    link.s.close()
    return True


def sv_ord_huge(a):
    """Reply ORD 16383: above siw's max IRD (128), which its relaxed negotiation still refuses
    (siw_proc_mpareply): expect TERMINATE LLP/MPA/insufficient IRD."""
    return sv_reply(a, mpa_frame(MPA_REP_KEY, F_ENHANCED, 2, (1, 0x3FFF)))


def sv_ird_zero(a):
    """Reply IRD 0 / ORD 0: siw's relaxed negotiation accepts it (only ORD > its max IRD is refused)."""
    return sv_reply(a, mpa_frame(MPA_REP_KEY, F_ENHANCED, 2, (0, 0)))


def sv_bad_key(a):
    return sv_reply(a, mpa_frame(b"MPA ID Bad Frame", F_ENHANCED, 2, (1, 1)))


def sv_reject(a):
    return sv_reply(a, mpa_frame(MPA_REP_KEY, F_ENHANCED | F_REJECT, 2, (1, 1), b"no"))


def sv_reject_short(a):
    """Reply R with H but PD_Length 0 (what siw answers a request with H and no room for the block)."""
    return sv_reply(a, MPA_REP_KEY + struct.pack(">BBH", F_ENHANCED | F_REJECT, 2, 0))


def sv_rping_crc(a):
    return sv_rping(a, crc=True)


SERVER_SCENARIOS = {"rping": sv_rping, "rping-crc": sv_rping_crc, "ord-huge": sv_ord_huge, "ird-zero": sv_ird_zero, "bad-key": sv_bad_key, "reject": sv_reject, "reject-short": sv_reject_short}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("role", choices=["client", "server"])
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--large", type=int, default=8000, help="ping size of rping-large")
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between scenarios")
    ap.add_argument("--src-base", type=int, default=0,
                    help="client scenario i connects from port SRC_BASE+1+i (slirp keeps it: pcap mapping)")
    ap.add_argument("--settle", type=float, default=0.5, help="seconds between the MPA reply and our first FPDU")
    a = ap.parse_args()
    table = CLIENT_SCENARIOS if a.role == "client" else SERVER_SCENARIOS
    results = []
    for i, name in enumerate(a.scenarios):
        a.src_port = a.src_base + 1 + i if a.src_base else None
        if name not in table:
            raise SystemExit("unknown scenario %s; known: %s" % (name, " ".join(table)))
        log("=== scenario %s%s" % (name, " (source port %d)" % a.src_port if a.src_port else ""))
        ok = bool(table[name](a))
        log("=== scenario %s: %s" % (name, "OK" if ok else "FAILED"))
        results.append((name, ok))
        time.sleep(a.gap)
    print("summary: " + " ".join("%s=%s" % (n, "ok" if ok else "FAIL") for n, ok in results))
    sys.exit(0 if all(ok for _, ok in results) else 1)


if __name__ == "__main__":
    main()
