#!/usr/bin/env python3
"""rocepeer.py - a small RoCEv2 peer (IB CM over QP1, one RC or UD data QP) on a plain UDP socket.

Runs in the network namespace of `rig.sh --tap --netns NAME` (ip netns exec NAME python3 rocepeer.py ...)
and talks to the guest's Linux rxe on 10.0.4.15, so that the guest's rxe/ib_cm/rdma_cm send every kind
of frame we want to pin as golden bytes. It is a capture tool, not an implementation to copy: it does
just enough of IBTA ch. 9 (RC/UD transport) and ch. 12 (CM) for rping, ucmatose and udaddy to complete.

  rocepeer.py passive-rping    guest runs `rping -c -a 10.0.4.2`; we answer REQ with REP, take the RTU,
                               act as the rping server (RDMA READ the guest's buffer, WRITE it back,
                               SENDs), answer the guest's DREQ with DREP. --dup-rep sends the REP twice.
  rocepeer.py active-rping     guest runs `rping -s -a 10.0.4.15`; we send REQ (--dup-req: twice), take
                               the REP, send RTU, act as the rping client (guest READs and WRITEs us),
                               then send DREQ and take the DREP.
  rocepeer.py active-ucmatose  guest runs `ucmatose -b 10.0.4.15 -S N -C M`; we connect, take its M
                               SENDs of N bytes, send M back, answer its DREQ.
  rocepeer.py passive-udaddy   guest runs `udaddy -s 10.0.4.2`; we answer SIDR_REQ with SIDR_REP and
                               echo its UD messages.
  rocepeer.py active-udaddy    guest runs `udaddy -b 10.0.4.15`; we send SIDR_REQ, take SIDR_REP,
                               send UD messages, take its replies.
  rocepeer.py reject-probe     send a REQ for --port where nothing listens; the guest answers REJ 8.

Every frame we send carries an ICRC computed for IPv4 id 0 + DF (the socket forces DF, unconnected);
every frame we receive has its ICRC checked by solving for the IPv4 id (hostpeer.icrc_from_socket).
Stdlib only; hostpeer.py from the interop rig is imported for the ICRC helpers.
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.environ.get("JRDMA_INTEROP", "/work/shared/interop"))
import hostpeer  # noqa: E402  (icrc, ipv4_udp_roce, icrc_from_socket, hexdump)

HOST_IP, GUEST_IP, ROCE_PORT = "10.0.4.2", "10.0.4.15", 4791
MTU = 1024
HOST_GUID = bytes.fromhex("5254000000000402")     # any EUI-64; rxe uses it only as an identifier
QP1_QKEY, RDMA_UDP_QKEY = 0x80010000, 0x01234567
PS_TCP, PS_UDP = 0x0106, 0x0111

# CM attribute ids (IBTA Vol 1 ch. 12 / ib_cm.h)
REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP = range(0x10, 0x19)
ATTR_NAMES = {REQ: "REQ", MRA: "MRA", REJ: "REJ", REP: "REP", RTU: "RTU", DREQ: "DREQ", DREP: "DREP",
              SIDR_REQ: "SIDR_REQ", SIDR_REP: "SIDR_REP"}

# BTH opcodes used here (IBTA Vol 1 Table 38)
RC_SEND_FIRST, RC_SEND_MIDDLE, RC_SEND_LAST, RC_SEND_ONLY = 0x00, 0x01, 0x02, 0x04
RC_WRITE_FIRST, RC_WRITE_MIDDLE, RC_WRITE_LAST, RC_WRITE_ONLY = 0x06, 0x07, 0x08, 0x0a
RC_READ_REQ, RC_READ_FIRST, RC_READ_MIDDLE, RC_READ_LAST, RC_READ_ONLY, RC_ACK = 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11
UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x64, 0x65
OPNAMES = {0x00: "RC SEND_FIRST", 0x01: "RC SEND_MIDDLE", 0x02: "RC SEND_LAST", 0x03: "RC SEND_LAST_IMM",
           0x04: "RC SEND_ONLY", 0x05: "RC SEND_ONLY_IMM", 0x06: "RC WRITE_FIRST", 0x07: "RC WRITE_MIDDLE",
           0x08: "RC WRITE_LAST", 0x09: "RC WRITE_LAST_IMM", 0x0a: "RC WRITE_ONLY", 0x0b: "RC WRITE_ONLY_IMM",
           0x0c: "RC READ_REQUEST", 0x0d: "RC READ_RESPONSE_FIRST", 0x0e: "RC READ_RESPONSE_MIDDLE",
           0x0f: "RC READ_RESPONSE_LAST", 0x10: "RC READ_RESPONSE_ONLY", 0x11: "RC ACKNOWLEDGE",
           0x64: "UD SEND_ONLY", 0x65: "UD SEND_ONLY_IMM"}

T0 = time.time()
LOG = []


def log(msg):
    print("%7.3f %s" % (time.time() - T0, msg), flush=True)


def psn_add(a, n):
    return (a + n) & 0xffffff


def psn_diff(a, b):
    """a - b as a signed 24-bit distance."""
    d = (a - b) & 0xffffff
    return d - 0x1000000 if d & 0x800000 else d


def bth(opcode, dqpn, psn, ackreq=False, pad=0, se=False):
    return struct.pack(">BBHII", opcode, (0x80 if se else 0) | (pad << 4), 0xffff, dqpn & 0xffffff,
                       (0x80000000 if ackreq else 0) | (psn & 0xffffff))


def gid4(ip):
    return b"\0" * 10 + b"\xff\xff" + socket.inet_aton(ip)


def cma_hdr(src_ip, src_port, dst_ip):
    """rdma_cm's 36-byte private-data header (cma.c struct cma_hdr), IPv4."""
    return bytes([0, 0x40]) + struct.pack(">H", src_port) + b"\0" * 12 + socket.inet_aton(src_ip) + \
        b"\0" * 12 + socket.inet_aton(dst_ip)


def service_id(ps, port):
    return (ps << 16) | port


class Net:
    """The UDP socket: DF forced and unconnected, so the kernel writes IPv4 id 0 (README, DF rule)."""

    def __init__(self, bind=HOST_IP, guest=GUEST_IP, record=None):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.setsockopt(socket.IPPROTO_IP, hostpeer.IP_MTU_DISCOVER, hostpeer.IP_PMTUDISC_DO)
        self.s.setsockopt(socket.IPPROTO_IP, hostpeer.IP_PKTINFO, 1)
        self.s.bind((bind, ROCE_PORT))
        self.bind, self.guest = bind, guest
        self.record = open(record, "w") if record else None
        self.sent = self.received = 0

    def send(self, payload_wo_icrc, what):
        pkt = hostpeer.ipv4_udp_roce(self.bind, self.guest, ROCE_PORT, payload_wo_icrc, ip_id=0, df=True)[28:]
        self.s.sendto(pkt, (self.guest, ROCE_PORT))
        self.sent += 1
        log("tx %s (%d bytes) %s" % (what, len(pkt), summary(pkt)))
        if self.record:
            self.record.write(json.dumps({"dir": "tx", "t": time.time() - T0, "what": what, "hex": pkt.hex()}) + "\n")

    def recv(self, timeout):
        r, _, _ = select.select([self.s], [], [], max(0.0, timeout))
        if not r:
            return None
        d, anc, _, peer = self.s.recvmsg(65535, 256)
        dst = self.bind
        for lvl, typ, data in anc:
            if lvl == socket.IPPROTO_IP and typ == hostpeer.IP_PKTINFO and len(data) >= 12:
                dst = socket.inet_ntoa(data[8:12])
        ip_id, frag = hostpeer.icrc_from_socket(d, peer[0], peer[1], dst, ROCE_PORT) if len(d) > 16 else (None, None)
        self.received += 1
        icrc = "ICRC OK ip_id=0x%04x DF=%d" % (ip_id, frag >> 14) if ip_id is not None else "ICRC BAD"
        log("rx from %s:%d %d bytes, %s: %s" % (peer[0], peer[1], len(d), icrc, summary(d)))
        if self.record:
            self.record.write(json.dumps({"dir": "rx", "t": time.time() - T0, "sport": peer[1], "ip_id": ip_id,
                                          "frag": frag, "hex": d.hex()}) + "\n")
            self.record.flush()
        return d, peer[1], ip_id


def summary(p):
    if len(p) < 12:
        return "runt"
    op, dqpn, ack, psn = p[0], int.from_bytes(p[5:8], "big"), p[8] >> 7, int.from_bytes(p[9:12], "big")
    s = "%s dqpn=0x%x psn=0x%06x%s pad=%d" % (OPNAMES.get(op, "op 0x%02x" % op), dqpn, psn, " A" if ack else "",
                                              p[1] >> 4 & 3)
    if op in (UD_SEND_ONLY, UD_SEND_ONLY_IMM):
        s += " qkey=0x%08x sqp=0x%x" % (struct.unpack(">I", p[12:16])[0], int.from_bytes(p[17:20], "big"))
        if dqpn == 1 and len(p) >= 44 and p[21] == 7:
            attr = struct.unpack(">H", p[36:38])[0]
            s += " MAD CM %s tid=%s attr_mod=0x%x" % (ATTR_NAMES.get(attr, hex(attr)), p[28:36].hex(),
                                                     struct.unpack(">I", p[40:44])[0])
    if op in (RC_ACK, RC_READ_FIRST, RC_READ_LAST, RC_READ_ONLY, 0x12):
        syn, msn = p[12], int.from_bytes(p[13:16], "big")
        s += " AETH syn=0x%02x msn=%d" % (syn, msn)
    if op in (RC_WRITE_FIRST, RC_WRITE_ONLY, RC_READ_REQ, 0x0b):
        va, rkey, ln = struct.unpack(">QII", p[12:28])
        s += " RETH va=0x%x rkey=0x%x len=%d" % (va, rkey, ln)
    return s


# ---------------------------------------------------------------------------------------------- CM
class Cm:
    """QP1: MADs in UD SEND-only with DETH Q_Key 0x80010000, src QP 1 (IBTA 13.4.6, ib_mad.h)."""

    def __init__(self, net):
        self.net, self.psn, self.tid_seq = net, 0, 0x100

    def new_tid(self):
        self.tid_seq += 1
        return struct.pack(">II", 0x4a524d41, self.tid_seq)        # "JRMA" + counter

    def send(self, attr, tid, data, attr_mod=0):
        assert len(data) == 232, len(data)
        mad = bytes([1, 7, 2, 3]) + b"\0\0\0\0" + tid + struct.pack(">HHI", attr, 0, attr_mod) + data
        pkt = bth(UD_SEND_ONLY, 1, self.psn, ackreq=True) + struct.pack(">II", QP1_QKEY, 1) + mad
        self.psn = psn_add(self.psn, 1)
        self.net.send(pkt, "CM " + ATTR_NAMES[attr])

    @staticmethod
    def parse(p):
        """(attr, tid, data232, attr_mod) of a CM MAD in a QP1 datagram, else None."""
        if len(p) < 20 + 256 + 4 or p[0] != UD_SEND_ONLY or int.from_bytes(p[5:8], "big") != 1:
            return None
        m = p[20:276]
        if m[0] != 1 or m[1] != 7:
            return None
        return struct.unpack(">H", m[16:18])[0], m[8:16], m[24:256], struct.unpack(">I", m[20:24])[0]


def build_req(comm_id, sid, qpn, psn, src_ip, dst_ip, pdata, resp_res=1, init_depth=1):
    d = bytearray(232)
    struct.pack_into(">I", d, 0, comm_id)
    struct.pack_into(">Q", d, 8, sid)
    d[16:24] = HOST_GUID
    struct.pack_into(">I", d, 32, (qpn << 8) | resp_res)
    struct.pack_into(">I", d, 36, init_depth)                       # local EECN 0 + initiator depth
    d[43] = 20 << 3                                                 # remote CM response timeout 20, RC, no e2e fc
    struct.pack_into(">I", d, 44, (psn << 8) | (20 << 3) | 7)       # PSN + local CM resp timeout 20 + retry 7
    struct.pack_into(">H", d, 48, 0xffff)
    d[50] = (3 << 4) | 7                                            # MTU 1024, RNR retry 7
    d[51] = 15 << 4                                                 # max CM retries 15
    struct.pack_into(">HH", d, 52, 0xffff, 0xffff)                  # permissive LIDs (routable RoCEv2)
    d[56:72], d[72:88] = gid4(src_ip), gid4(dst_ip)
    struct.pack_into(">I", d, 88, 0x12345 << 12)                    # flow label, rate 0
    d[93] = 64                                                      # hop limit
    d[95] = 19 << 3                                                 # local ACK timeout 19
    d[140:140 + len(pdata)] = pdata
    return bytes(d)


def build_rep(comm_id, remote_comm_id, qpn, psn, pdata=b"", resp_res=1, init_depth=1):
    d = bytearray(232)
    struct.pack_into(">II", d, 0, comm_id, remote_comm_id)
    struct.pack_into(">I", d, 12, qpn << 8)
    struct.pack_into(">I", d, 20, psn << 8)
    d[24], d[25] = resp_res, init_depth
    d[26] = 15 << 3                                                 # target ACK delay 15 (rxe's ack delay)
    d[27] = 7 << 5                                                  # RNR retry 7
    d[28:36] = HOST_GUID
    d[36:36 + len(pdata)] = pdata
    return bytes(d)


def build_ids(comm_id, remote_comm_id, extra=b"", at=8):
    d = bytearray(232)
    struct.pack_into(">II", d, 0, comm_id, remote_comm_id)
    d[at:at + len(extra)] = extra
    return bytes(d)


# ---------------------------------------------------------------------------------------------- RC
class RcQp:
    """Just enough of an RC QP (IBTA 9.7): in-order requests, ACK on AckReq, READ responder/requester."""

    def __init__(self, net, qpn, rq_psn):
        # IB CM: the starting PSN a side puts in its REQ/REP is the PSN it expects to RECEIVE; the peer
        # sends from it (cm.c: ib_send_cm_req/ib_send_cm_rep set rq_psn, cm_req_handler/cm_rep_handler sq_psn).
        self.net, self.qpn, self.rq_psn = net, qpn, rq_psn
        self.peer_qpn = self.sq_psn = None
        self.msn = 0
        self.outstanding = []          # [last_psn, [payloads], deadline, tries, what]
        self.mem = {}                  # rkey -> (va, bytearray)
        self.recv_msgs, self.cur_send = [], bytearray()
        self.write_target = None       # (rkey, va offset)
        self.writes_done = 0
        self.read_wait = None          # (first psn, npkts, bytearray, done flag list)
        self.last_ack_sent = None

    # ---------------------------------------------------------------- requester side
    def _post(self, pkts, what):
        for p in pkts:
            self.net.send(p, what)
        last_psn = psn_add(self.sq_psn, -1)
        self.outstanding.append([last_psn, pkts, time.time() + 3.0, 0, what])

    def post_send(self, data, what="SEND"):
        n = max(1, -(-len(data) // MTU))
        pkts = []
        for i in range(n):
            chunk = data[i * MTU:(i + 1) * MTU]
            op = RC_SEND_ONLY if n == 1 else RC_SEND_FIRST if i == 0 else RC_SEND_LAST if i == n - 1 else RC_SEND_MIDDLE
            pad = -len(chunk) & 3
            last = i == n - 1
            pkts.append(bth(op, self.peer_qpn, self.sq_psn, ackreq=last, pad=pad) + chunk + b"\0" * pad)
            self.sq_psn = psn_add(self.sq_psn, 1)
        self._post(pkts, what)

    def post_write(self, va, rkey, data, what="WRITE"):
        n = max(1, -(-len(data) // MTU))
        pkts = []
        for i in range(n):
            chunk = data[i * MTU:(i + 1) * MTU]
            op = RC_WRITE_ONLY if n == 1 else RC_WRITE_FIRST if i == 0 else RC_WRITE_LAST if i == n - 1 \
                else RC_WRITE_MIDDLE
            reth = struct.pack(">QII", va, rkey, len(data)) if op in (RC_WRITE_FIRST, RC_WRITE_ONLY) else b""
            pad = -len(chunk) & 3
            pkts.append(bth(op, self.peer_qpn, self.sq_psn, ackreq=i == n - 1, pad=pad) + reth + chunk + b"\0" * pad)
            self.sq_psn = psn_add(self.sq_psn, 1)
        self._post(pkts, what)

    def post_read(self, va, rkey, length, what="READ"):
        n = max(1, -(-length // MTU))
        pkt = bth(RC_READ_REQ, self.peer_qpn, self.sq_psn, ackreq=True) + struct.pack(">QII", va, rkey, length)
        self.read_wait = [self.sq_psn, n, bytearray(), [False]]
        self.sq_psn = psn_add(self.sq_psn, n)
        self._post([pkt], what)
        return self.read_wait[3]

    def idle(self):
        return not self.outstanding

    def tick(self):
        now = time.time()
        for o in self.outstanding:
            if now >= o[2]:
                o[3] += 1
                o[2] = now + 3.0
                log("retransmit %s (try %d)" % (o[4], o[3]))
                for p in o[1]:
                    self.net.send(p, o[4] + " (retry)")

    def _acked(self, psn):
        self.outstanding = [o for o in self.outstanding if psn_diff(o[0], psn) > 0]

    # ---------------------------------------------------------------- responder side
    def _ack(self, psn, syndrome=0x1f):
        self.net.send(bth(RC_ACK, self.peer_qpn, psn) + struct.pack(">I", (syndrome << 24) | (self.msn & 0xffffff)),
                      "ACK")
        self.last_ack_sent = psn

    def on_packet(self, p):
        op, psn, ackreq = p[0], int.from_bytes(p[9:12], "big"), p[8] >> 7
        pad = p[1] >> 4 & 3
        if op in (RC_ACK, RC_READ_FIRST, RC_READ_MIDDLE, RC_READ_LAST, RC_READ_ONLY):
            self._on_response(op, psn, p, pad)
            return
        if op > 0x1f:
            log("ignored opcode 0x%02x on the RC QP" % op)
            return
        d = psn_diff(psn, self.rq_psn)
        if d < 0:
            log("duplicate request psn 0x%06x (expected 0x%06x): re-ACK" % (psn, self.rq_psn))
            self._ack(psn_add(self.rq_psn, -1))
            return
        if d > 0:
            log("out of sequence psn 0x%06x (expected 0x%06x): NAK" % (psn, self.rq_psn))
            self._ack(psn_add(self.rq_psn, -1), 0x60)
            return
        if op in (RC_SEND_FIRST, RC_SEND_MIDDLE, RC_SEND_LAST, RC_SEND_ONLY):
            self.cur_send += p[12:len(p) - 4 - pad]
            self.rq_psn = psn_add(self.rq_psn, 1)
            if op in (RC_SEND_LAST, RC_SEND_ONLY):
                self.msn += 1
                self.recv_msgs.append(bytes(self.cur_send))
                self.cur_send = bytearray()
        elif op in (RC_WRITE_FIRST, RC_WRITE_MIDDLE, RC_WRITE_LAST, RC_WRITE_ONLY):
            off = 12
            if op in (RC_WRITE_FIRST, RC_WRITE_ONLY):
                va, rkey, ln = struct.unpack(">QII", p[12:28])
                base, buf = self.mem[rkey]
                self.write_target = [rkey, va - base]
                off = 28
            data = p[off:len(p) - 4 - pad]
            base, buf = self.mem[self.write_target[0]]
            buf[self.write_target[1]:self.write_target[1] + len(data)] = data
            self.write_target[1] += len(data)
            self.rq_psn = psn_add(self.rq_psn, 1)
            if op in (RC_WRITE_LAST, RC_WRITE_ONLY):
                self.msn += 1
                self.writes_done += 1
        elif op == RC_READ_REQ:
            va, rkey, ln = struct.unpack(">QII", p[12:28])
            base, buf = self.mem[rkey]
            data = bytes(buf[va - base:va - base + ln])
            n = max(1, -(-ln // MTU))
            self.msn += 1
            for i in range(n):
                chunk = data[i * MTU:(i + 1) * MTU]
                rop = RC_READ_ONLY if n == 1 else RC_READ_FIRST if i == 0 else RC_READ_LAST if i == n - 1 \
                    else RC_READ_MIDDLE
                aeth = struct.pack(">I", (0x1f << 24) | self.msn) if rop != RC_READ_MIDDLE else b""
                rpad = -len(chunk) & 3
                self.net.send(bth(rop, self.peer_qpn, psn_add(psn, i), pad=rpad) + aeth + chunk + b"\0" * rpad,
                              "READ response")
            self.rq_psn = psn_add(self.rq_psn, n)
            return
        else:
            log("unsupported request opcode 0x%02x" % op)
            return
        if ackreq:
            self._ack(psn)

    def _on_response(self, op, psn, p, pad):
        if op == RC_ACK:
            syn = p[12]
            if syn >> 5 == 0:
                self._acked(psn)
            else:
                log("NAK/RNR syndrome 0x%02x psn 0x%06x" % (syn, psn))
            return
        rw = self.read_wait
        if rw is None:
            return
        off = 12 if op == RC_READ_MIDDLE else 16
        rw[2] += p[off:len(p) - 4 - pad]
        if op in (RC_READ_LAST, RC_READ_ONLY):
            rw[3][0] = True
            self._acked(psn)


class Peer:
    def __init__(self, args):
        self.a = args
        self.net = Net(record=args.record)
        self.cm = Cm(self.net)
        self.qp = None
        self.conn = {}               # our comm id, remote comm id, tid
        self.disconnected = False
        self.established = False
        self.got = {}                # attr -> count
        self.ud_msgs = []
        self.rtu_seen = 0
        self.pending_cm = []

    # -------------------------------------------------------------- event pump
    def pump(self, until, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if until():
                return True
            r = self.net.recv(0.1)
            if self.qp:
                self.qp.tick()
            if r is None:
                continue
            d, sport, ip_id = r
            if len(d) < 16:
                continue
            dqpn = int.from_bytes(d[5:8], "big")
            if dqpn == 1:
                m = Cm.parse(d)
                if m:
                    self.on_cm(*m)
            elif self.qp and dqpn == self.qp.qpn:
                if self.qp.peer_qpn is not None:
                    self.qp.on_packet(d)
            elif d[0] in (UD_SEND_ONLY, UD_SEND_ONLY_IMM) and dqpn == self.a.qpn:
                self.on_ud(d)
        log("TIMEOUT waiting for %s" % what)
        return until()

    def on_cm(self, attr, tid, data, attr_mod):
        self.got[attr] = self.got.get(attr, 0) + 1
        g = lambda o, n: int.from_bytes(data[o:o + n], "big")
        if attr == DREQ:
            log("guest DREQ: local comm 0x%08x remote comm 0x%08x remote qpn 0x%06x" % (g(0, 4), g(4, 4), g(8, 3)))
            self.cm.send(DREP, tid, build_ids(self.conn.get("local", g(4, 4)), g(0, 4)))
            self.disconnected = True
        elif attr == DREP:
            log("guest DREP")
            self.disconnected = True
        elif attr == RTU:
            self.rtu_seen += 1
            self.established = True
        elif attr == MRA:
            log("guest MRA: message MRAed %d, service timeout %d" % (data[8] >> 6, data[9] >> 3))
        elif attr == REJ:
            log("guest REJ: reason %d, message rejected %d" % (g(10, 2), data[8] >> 6))
        self.pending_cm.append((attr, tid, data, attr_mod))

    def take_cm(self, attr):
        for i, m in enumerate(self.pending_cm):
            if m[0] == attr:
                return self.pending_cm.pop(i)
        return None

    def on_ud(self, d):
        imm = d[0] == UD_SEND_ONLY_IMM
        off = 20 + (4 if imm else 0)
        pad = d[1] >> 4 & 3
        self.ud_msgs.append((int.from_bytes(d[17:20], "big"), d[20:24] if imm else None, d[off:len(d) - 4 - pad]))

    # -------------------------------------------------------------- scenarios
    def new_qp(self):
        self.qp = RcQp(self.net, self.a.qpn, self.a.psn)
        return self.qp

    def passive_connect(self, dup_rep=False):
        """Wait for the guest's REQ, answer REP (twice with dup_rep), wait for the RTU."""
        if not self.pump(lambda: any(m[0] == REQ for m in self.pending_cm), self.a.timeout, "REQ"):
            return False
        _, tid, req, _ = self.take_cm(REQ)
        g = lambda o, n: int.from_bytes(req[o:o + n], "big")
        qp = self.new_qp()
        qp.peer_qpn, qp.sq_psn = g(32, 3), g(44, 3)
        self.conn = {"local": 0x0c0ffee1, "remote": g(0, 4), "tid": tid}
        log("guest REQ: comm 0x%08x sid 0x%016x qpn 0x%06x psn 0x%06x resp_res %d init_depth %d mtu %d" % (
            g(0, 4), g(8, 8), qp.peer_qpn, qp.sq_psn, req[35], req[39], req[50] >> 4))
        rep = build_rep(self.conn["local"], g(0, 4), qp.qpn, qp.rq_psn,
                        resp_res=min(req[39], 1), init_depth=min(req[35], 1))
        self.cm.send(REP, tid, rep)
        if dup_rep:
            self.cm.send(REP, tid, rep)
        ok = self.pump(lambda: self.rtu_seen > 0, 20, "RTU")
        if dup_rep:          # give the CM time to answer the duplicate (MRA before RTU, or a second RTU)
            self.pump(lambda: False, 2, "linger")
        return ok

    def active_connect(self, ps, port, dup_req=False):
        qp = self.new_qp()
        pdata = cma_hdr(HOST_IP, 40001, GUEST_IP)
        deadline = time.time() + self.a.timeout
        comm = 0x0c0ffee1
        while time.time() < deadline:
            tid = self.cm.new_tid()
            req = build_req(comm, service_id(ps, port), qp.qpn, qp.rq_psn, HOST_IP, GUEST_IP, pdata)
            self.cm.send(REQ, tid, req)
            if dup_req:
                self.cm.send(REQ, tid, req)
            self.pump(lambda: any(m[0] in (REP, REJ) for m in self.pending_cm), 6, "REP")
            rep = self.take_cm(REP)
            if rep:
                break
            rej = self.take_cm(REJ)
            if rej:
                log("REJ (no listener yet?) - retrying with a new comm id")
                comm += 1
                time.sleep(1)
        else:
            return False
        _, rtid, data, _ = rep
        g = lambda o, n: int.from_bytes(data[o:o + n], "big")
        qp.peer_qpn, qp.sq_psn = g(12, 3), g(20, 3)
        self.conn = {"local": comm, "remote": g(0, 4), "tid": tid}
        log("guest REP: comm 0x%08x qpn 0x%06x psn 0x%06x resp_res %d init_depth %d" % (
            g(0, 4), qp.peer_qpn, qp.sq_psn, data[24], data[25]))
        if dup_req:
            self.pump(lambda: False, 2, "linger")
        self.cm.send(RTU, tid, build_ids(comm, g(0, 4)))
        self.established = True
        return True

    def disconnect(self):
        self.cm.send(DREQ, self.cm.new_tid(), build_ids(self.conn["local"], self.conn["remote"],
                                                        struct.pack(">I", self.qp.peer_qpn << 8)))
        return self.pump(lambda: self.disconnected, 20, "DREP")

    def passive_rping(self):
        if not self.passive_connect(self.a.dup_rep):
            return 1
        qp = self.qp
        qp.mem[0x4242] = (0x100000, bytearray(self.a.size))
        for i in range(self.a.count):
            if not self.pump(lambda: qp.recv_msgs, 30, "client's start-buffer advert"):
                return 1
            va, rkey, size = struct.unpack(">QII", qp.recv_msgs.pop(0))
            log("rping client start buffer va 0x%x rkey 0x%x size %d" % (va, rkey, size))
            done = qp.post_read(va, rkey, size)
            if not self.pump(lambda: done[0], 30, "READ responses"):
                return 1
            data = bytes(qp.read_wait[2])
            log("read %d bytes: %r" % (len(data), data[:40]))
            qp.post_send(b"\0" * 16, "SEND go-ahead")
            if not self.pump(lambda: qp.recv_msgs, 30, "client's sink advert"):
                return 1
            va2, rkey2, size2 = struct.unpack(">QII", qp.recv_msgs.pop(0))
            qp.post_write(va2, rkey2, data)
            qp.post_send(b"\0" * 16, "SEND done")
            if not self.pump(qp.idle, 30, "ACKs"):
                return 1
        self.pump(lambda: self.disconnected, 30, "DREQ")
        return 0 if self.disconnected else 1

    def active_rping(self):
        if not self.active_connect(PS_TCP, self.a.port, self.a.dup_req):
            return 1
        qp = self.qp
        start = bytearray((b"rdma-ping-0: " + bytes(range(0x41, 0x5b)) * 200)[:self.a.size - 1] + b"\0")
        qp.mem[0x5151] = (0x200000, start)
        qp.mem[0x6161] = (0x300000, bytearray(self.a.size))
        for i in range(self.a.count):
            qp.post_send(struct.pack(">QII", 0x200000, 0x5151, self.a.size), "SEND start advert")
            if not self.pump(lambda: qp.recv_msgs, 30, "server's go-ahead"):
                return 1
            qp.recv_msgs.pop(0)
            qp.post_send(struct.pack(">QII", 0x300000, 0x6161, self.a.size), "SEND sink advert")
            if not self.pump(lambda: qp.recv_msgs, 30, "server's write-done"):
                return 1
            qp.recv_msgs.pop(0)
            ok = qp.mem[0x6161][1] == start
            log("iteration %d: sink %s the start buffer" % (i, "equals" if ok else "DIFFERS from"))
        self.pump(qp.idle, 10, "ACKs")
        ok = self.disconnect()
        self.pump(lambda: False, 1, "linger")
        return 0 if ok else 1

    def active_ucmatose(self):
        if not self.active_connect(PS_TCP, self.a.port or 7471, self.a.dup_req):
            return 1
        qp = self.qp
        if not self.pump(lambda: len(qp.recv_msgs) >= self.a.count, 60, "guest SENDs"):
            return 1
        for i in range(self.a.count):
            qp.post_send(bytes([0x30 + i]) * self.a.size, "SEND %d" % i)
        self.pump(qp.idle, 30, "ACKs")
        self.pump(lambda: self.disconnected, 30, "DREQ")
        return 0 if self.disconnected else 1

    def reject_probe(self):
        """A REQ for a port nobody listens on: the guest's ib_cm answers REJ 'invalid service ID' (8)."""
        qp = self.new_qp()
        req = build_req(0x0c0ffee9, service_id(PS_TCP, self.a.port), qp.qpn, qp.rq_psn, HOST_IP, GUEST_IP,
                        cma_hdr(HOST_IP, 40003, GUEST_IP))
        self.cm.send(REQ, self.cm.new_tid(), req)
        ok = self.pump(lambda: any(m[0] == REJ for m in self.pending_cm), 10, "REJ")
        return 0 if ok else 1

    def ud_send(self, dqpn, qkey, data, imm=None):
        op = UD_SEND_ONLY_IMM if imm is not None else UD_SEND_ONLY
        pad = -len(data) & 3
        p = bth(op, dqpn, self.a.psn, pad=pad) + struct.pack(">II", qkey, self.a.qpn) + \
            (struct.pack(">I", imm) if imm is not None else b"") + data + b"\0" * pad
        self.a.psn = psn_add(self.a.psn, 1)
        self.net.send(p, "UD SEND")

    def passive_udaddy(self):
        if not self.pump(lambda: any(m[0] == SIDR_REQ for m in self.pending_cm), self.a.timeout, "SIDR_REQ"):
            return 1
        _, tid, req, _ = self.take_cm(SIDR_REQ)
        g = lambda o, n: int.from_bytes(req[o:o + n], "big")
        log("guest SIDR_REQ: request id 0x%08x pkey 0x%04x sid 0x%016x" % (g(0, 4), g(4, 2), g(8, 8)))
        d = bytearray(232)
        struct.pack_into(">I", d, 0, g(0, 4))
        struct.pack_into(">I", d, 8, self.a.qpn << 8)
        d[12:20] = req[8:16]
        struct.pack_into(">I", d, 20, RDMA_UDP_QKEY)
        self.cm.send(SIDR_REP, tid, bytes(d))
        if not self.pump(lambda: len(self.ud_msgs) >= self.a.count, 30, "guest UD messages"):
            return 1
        sqp = self.ud_msgs[0][0]
        for i in range(self.a.count):
            self.ud_send(sqp, RDMA_UDP_QKEY, bytes([0x61 + i]) * self.a.size, imm=self.a.qpn)
        self.pump(lambda: False, 2, "linger")
        return 0

    def active_udaddy(self):
        deadline = time.time() + self.a.timeout
        rid = 0x5a5a0001
        while time.time() < deadline:
            d = bytearray(232)
            struct.pack_into(">IH", d, 0, rid, 0xffff)
            struct.pack_into(">Q", d, 8, service_id(PS_UDP, self.a.port or 7174))
            d[16:52] = cma_hdr(HOST_IP, 40002, GUEST_IP)
            self.cm.send(SIDR_REQ, self.cm.new_tid(), bytes(d))
            self.pump(lambda: any(m[0] == SIDR_REP for m in self.pending_cm), 5, "SIDR_REP")
            rep = self.take_cm(SIDR_REP)
            if rep:
                data = rep[2]
                status = data[4]
                if status == 0:
                    break
                log("SIDR_REP status %d - retrying" % status)
                rid += 1
                time.sleep(1)
        else:
            return 1
        g = lambda o, n: int.from_bytes(data[o:o + n], "big")
        gqpn, qkey = g(8, 3), g(20, 4)
        log("guest SIDR_REP: qpn 0x%06x qkey 0x%08x sid 0x%016x" % (gqpn, qkey, g(12, 8)))
        for i in range(self.a.count):
            self.ud_send(gqpn, qkey, bytes([0x41 + i]) * self.a.size, imm=self.a.qpn)
        ok = self.pump(lambda: len(self.ud_msgs) >= self.a.count, 30, "guest UD replies")
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=["passive-rping", "active-rping", "active-ucmatose", "passive-udaddy",
                                         "active-udaddy", "reject-probe"])
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--size", type=int, default=64, help="rping -S / ucmatose -S / udaddy -S size")
    ap.add_argument("--count", type=int, default=1, help="rping -C / ucmatose -C / udaddy -C count")
    ap.add_argument("--port", type=int, default=7174, help="rdma_cm port of the guest listener")
    ap.add_argument("--qpn", type=lambda s: int(s, 0), default=0x000123, help="our data QPN")
    ap.add_argument("--psn", type=lambda s: int(s, 0), default=0x0a0b0c, help="our starting PSN")
    ap.add_argument("--dup-rep", action="store_true", help="send the REP twice (provokes MRA or a 2nd RTU)")
    ap.add_argument("--dup-req", action="store_true", help="send the REQ twice (provokes MRA)")
    ap.add_argument("--record", help="write every tx/rx datagram as JSON lines to this file")
    a = ap.parse_args()
    p = Peer(a)
    rc = {"passive-rping": p.passive_rping, "active-rping": p.active_rping, "active-ucmatose": p.active_ucmatose,
          "passive-udaddy": p.passive_udaddy, "active-udaddy": p.active_udaddy,
          "reject-probe": p.reject_probe}[a.scenario]()
    log("summary: rc=%d sent=%d received=%d cm=%s" % (
        rc, p.net.sent, p.net.received, {ATTR_NAMES.get(k, k): v for k, v in p.got.items()}))
    sys.exit(rc)


if __name__ == "__main__":
    main()
