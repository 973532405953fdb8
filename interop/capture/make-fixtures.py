#!/usr/bin/env python3
"""Write jrdma-rxe's golden fixtures (one IPv4 packet per .hex file) from the capture pcaps.

  make-fixtures.py [OUTDIR]     default OUTDIR: ../../jrdma-rxe/src/test/resources/golden

Sources: out/*.pcap (capture-all.sh, netns rxewire) and /work/shared/interop/evidence/*.pcap* (the rig's
verify.sh runs). Every fixture's ICRC is recomputed here with the real IPv4 id from the capture and the
script stops if one does not match (except the named negative controls).
"""
import os
import socket
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pcap2hex  # noqa: E402

EVIDENCE = os.environ.get("JRDMA_EVIDENCE", "/work/shared/interop/evidence")
OUT = os.path.join(HERE, "out")
G = "guest Linux 6.1.0-57-amd64 rdma_rxe (rxe1 on eth1, 10.0.4.15)"
H = "host rocepeer.py (ICRC for IPv4 id 0 + DF); accepted by the guest's rxe"
CMDS = {
    "p-rping-64": "guest `rping -c -a 10.0.4.2 -v -C 1 -S 64`; host `rocepeer.py passive-rping --size 64 --count 1`",
    "p-rping-2500-duprep": "guest `rping -c -a 10.0.4.2 -v -C 2 -S 2500`; host `rocepeer.py passive-rping "
                           "--size 2500 --count 2 --dup-rep`",
    "p-udaddy": "guest `udaddy -s 10.0.4.2 -C 2 -S 100`; host `rocepeer.py passive-udaddy --size 100 --count 2`",
    "rej-no-listener": "no guest listener; host `rocepeer.py reject-probe --port 7999`",
    "a-rping-64-dupreq": "guest `rping -s -a 10.0.4.15 -v -C 1 -S 64`; host `rocepeer.py active-rping --size 64 "
                         "--count 1 --dup-req`",
    "a-rping-2500": "guest `rping -s -a 10.0.4.15 -v -C 1 -S 2500`; host `rocepeer.py active-rping --size 2500 --count 1`",
    "a-ucmatose-3000": "guest `ucmatose -b 10.0.4.15 -S 3000 -C 2`; host `rocepeer.py active-ucmatose --port 7471 "
                       "--size 3000 --count 2`",
    "a-udaddy": "guest `udaddy -b 10.0.4.15 -C 2 -S 100`; host `rocepeer.py active-udaddy --size 100 --count 2`",
    "g-ns-tap0": "interop verify.sh check g: guest `rping -s`/`rping -c -a 10.0.4.2`; host `hostpeer.py tap-roce`",
    "g-neg-ns-tap0": "interop verify.sh check g-neg: host `hostpeer.py tap-roce --naive 2` (negative control)",
    "f-guest": "interop verify.sh check f (--l2, eth1 10.0.3.15): guest `rping -c`/`rping -s`; host `hostpeer.py l2-roce`",
    "d-guest": "interop verify.sh check d (slirp, rxe0 on eth0 10.0.2.15): guest `rping -c -a 10.0.2.2`",
}
# name, capture (out/NAME.pcap or evidence file), frame number among its RoCEv2 frames, origin, what
FIXTURES = [
    ("cm-req-rping-client", "p-rping-64", 1, G, "CM REQ from rdma_cm (rping -c), RC, PS_TCP port 7174"),
    ("cm-req-rping-client-tap", "g-ns-tap0", 1, G, "CM REQ from rdma_cm (rping -c) of verify.sh check g"),
    ("cm-req-rping-client-l2", "f-guest", 1, "guest Linux 6.1 rdma_rxe (rxe1 on eth1, 10.0.3.15, --l2)",
     "CM REQ from rdma_cm (rping -c) over the --l2 link"),
    ("cm-req-rping-client-slirp", "d-guest", 1, "guest Linux 6.1 rdma_rxe (rxe0 on eth0, 10.0.2.15, slirp)",
     "CM REQ from rdma_cm (rping -c) on the slirp side of the guest NIC"),
    ("cm-rep-rping-server", "a-rping-2500", 2, G, "CM REP from rdma_cm (rping -s accepting our REQ)"),
    ("cm-rep-ucmatose-server", "a-ucmatose-3000", 2, G, "CM REP from rdma_cm (ucmatose accepting our REQ)"),
    ("cm-rep-rping-server-tap", "g-ns-tap0", 3, G, "CM REP from rdma_cm (rping -s) of verify.sh check g"),
    ("cm-rtu", "p-rping-64", 4, G, "CM RTU from the active side (rping -c) after our REP"),
    ("cm-mra-req", "a-rping-64-dupreq", 3, G, "CM MRA for a duplicate REQ (message MRAed 0 = REQ)"),
    ("cm-mra-rep", "p-rping-2500-duprep", 5, G, "CM MRA for a duplicate REP (message MRAed 1 = REP)"),
    ("cm-rej-timeout", "g-ns-tap0", 4, G, "CM REJ reason 4 (timeout) after the REQ was never answered; ARI = CA GUID"),
    ("cm-rej-timeout-slirp", "d-guest", 2, "guest Linux 6.1 rdma_rxe (rxe0 on eth0, 10.0.2.15, slirp)",
     "CM REJ reason 4 (timeout) on eth0's rxe0"),
    ("cm-rej-consumer", "f-guest", 7, "guest Linux 6.1 rdma_rxe (rxe1 on eth1, 10.0.3.15, --l2)",
     "CM REJ reason 28 (consumer) for a REQ that rping -s no longer wanted"),
    ("cm-rej-invalid-service-id", "rej-no-listener", 2, G, "CM REJ reason 8 (invalid service ID): nobody listens"),
    ("cm-dreq-active-side", "p-rping-64", 17, G, "CM DREQ from the active side (rping -c disconnecting)"),
    ("cm-dreq-passive-side", "a-ucmatose-3000", 20, G, "CM DREQ from the passive side (ucmatose server)"),
    ("cm-drep", "a-rping-2500", 21, G, "CM DREP answering our DREQ (rping -s)"),
    ("cm-sidr-req", "p-udaddy", 1, G, "CM SIDR_REQ from rdma_cm (udaddy client), PS_UDP port 7174"),
    ("cm-sidr-rep", "a-udaddy", 2, G, "CM SIDR_REP from rdma_cm (udaddy server): QPN + Q_Key 0x01234567"),
    ("rc-send-only", "p-rping-64", 5, G, "RC SEND Only, 16 bytes (rping's buffer advert)"),
    ("rc-send-first", "a-ucmatose-3000", 4, G, "RC SEND First, 1024 bytes (ucmatose -S 3000)"),
    ("rc-send-middle", "a-ucmatose-3000", 5, G, "RC SEND Middle, 1024 bytes"),
    ("rc-send-last", "a-ucmatose-3000", 6, G, "RC SEND Last, 952 bytes"),
    ("rc-rdma-write-only", "a-rping-64-dupreq", 14, G, "RC RDMA WRITE Only with RETH, 64 bytes (rping -s)"),
    ("rc-rdma-write-first", "a-rping-2500", 14, G, "RC RDMA WRITE First with RETH (2500-byte write)"),
    ("rc-rdma-write-middle", "a-rping-2500", 15, G, "RC RDMA WRITE Middle"),
    ("rc-rdma-write-last", "a-rping-2500", 16, G, "RC RDMA WRITE Last, 452 bytes"),
    ("rc-rdma-read-request", "a-rping-2500", 6, G, "RC RDMA READ Request with RETH (2500 bytes)"),
    ("rc-rdma-read-response-only", "p-rping-64", 8, G, "RC RDMA READ Response Only with AETH, 64 bytes"),
    ("rc-rdma-read-response-first", "p-rping-2500-duprep", 10, G, "RC RDMA READ Response First with AETH"),
    ("rc-rdma-read-response-middle", "p-rping-2500-duprep", 11, G, "RC RDMA READ Response Middle (no AETH)"),
    ("rc-rdma-read-response-last", "p-rping-2500-duprep", 12, G, "RC RDMA READ Response Last with AETH, 452 bytes"),
    ("rc-ack", "p-rping-64", 10, G, "RC Acknowledge, AETH ACK with credits 0x1f"),
    ("ud-send-only-imm-client", "p-udaddy", 4, G, "UD SEND Only with Immediate (udaddy client), DETH + ImmDt"),
    ("ud-send-only-imm-server", "a-udaddy", 5, G, "UD SEND Only with Immediate (udaddy server reply)"),
    ("host-cm-req", "a-rping-64-dupreq", 1, H, "our CM REQ; rping -s answered MRA then REP"),
    ("host-cm-rep", "p-rping-64", 3, H, "our CM REP; rping -c answered RTU"),
    ("host-cm-rtu", "a-rping-2500", 3, H, "our CM RTU"),
    ("host-cm-dreq", "a-rping-2500", 20, H, "our CM DREQ; rping -s answered DREP"),
    ("host-cm-drep", "p-rping-64", 18, H, "our CM DREP"),
    ("host-cm-sidr-req", "a-udaddy", 1, H, "our CM SIDR_REQ; udaddy answered SIDR_REP"),
    ("host-cm-sidr-rep", "p-udaddy", 3, H, "our CM SIDR_REP; udaddy then sent its UD messages"),
    ("host-rc-read-request", "p-rping-64", 7, H, "our RC RDMA READ Request; rxe answered READ Response Only"),
    ("host-rc-write-first", "p-rping-2500-duprep", 17, H, "our RC RDMA WRITE First; rxe ACKed the message"),
    ("host-ud-send-only-imm", "a-udaddy", 3, H, "our UD SEND Only with Immediate; udaddy replied"),
]
NEGATIVE = [
    ("neg-host-req-counter-id", "g-neg-ns-tap0", 2,
     "host REQ whose ICRC assumed IPv4 id 0 but the kernel wrote a counter id (IP_PMTUDISC_WANT); rxe dropped it"),
]


def source(cap):
    p = os.path.join(OUT, cap + ".pcap")
    if os.path.exists(p):
        return p
    for suffix in (".pcap", ".pcap.eth1"):
        p = os.path.join(EVIDENCE, cap + suffix)
        if cap in ("f-guest",) and suffix == ".pcap":
            continue
        if os.path.exists(p):
            return p
    raise SystemExit("no capture for " + cap)


def write(outdir, name, cap, n, origin, what, expect_ok=True):
    path = source(cap)
    t, ip = list(pcap2hex.frames(path))[n - 1]
    ok = ip[-4:] == struct.pack("<I", pcap2hex.icrc(ip))
    if ok != expect_ok:
        raise SystemExit("%s: ICRC %s, expected %s" % (name, ok, expect_ok))
    ihl = (ip[0] & 0xf) * 4
    sport, dport = struct.unpack(">HH", ip[ihl:ihl + 4])
    with open(os.path.join(outdir, name + ".hex"), "w") as o:
        o.write("# %s\n" % what)
        o.write("# origin: %s\n" % origin)
        o.write("# capture: %s frame %d (RoCEv2 frames only), dumpcap on the host side of the link\n"
                % (os.path.basename(path), n))
        o.write("# command: %s\n" % CMDS.get(cap.replace(".pcap.eth1", ""), cap))
        o.write("# icrc: %s with the captured IPv4 id\n" % ("matches" if ok else "DOES NOT match"))
        o.write("# src=%s dst=%s sport=%d dport=%d ipid=0x%04x frag=0x%04x\n" % (
            socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]), sport, dport,
            struct.unpack(">H", ip[4:6])[0], struct.unpack(">H", ip[6:8])[0]))
        for i in range(0, len(ip), 16):
            o.write(ip[i:i + 16].hex() + "\n")
    return pcap2hex.describe(ip)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "jrdma-rxe", "src", "test",
                                                                 "resources", "golden")
    os.makedirs(outdir, exist_ok=True)
    for f in FIXTURES:
        print("%-32s %s" % (f[0], write(outdir, *f)))
    for name, cap, n, what in NEGATIVE:
        print("%-32s %s" % (name, write(outdir, name, cap, n, "host hostpeer.py", what, expect_ok=False)))


if __name__ == "__main__":
    main()
