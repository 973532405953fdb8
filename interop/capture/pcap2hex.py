#!/usr/bin/env python3
"""Extract every RoCEv2 frame (IPv4/UDP dst or src 4791) from classic pcap files.

  pcap2hex.py list  PCAP...            one line per RoCEv2 frame: file#n, addresses, ip id, DF, opcode, attr
  pcap2hex.py dump  PCAP N OUT.hex     write frame N (1-based among RoCEv2 frames) as a golden fixture

A fixture is a text file: '#' comment lines with the metadata a socket would see plus the real IPv4
id/flags from the capture, then the IPv4 packet (IP header .. ICRC) as hex, 16 bytes per line.
Stdlib only. Written for jrdma (rxe-wire); not derived from any third-party code.
"""
import socket, struct, sys, zlib


def frames(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        raise SystemExit("%s: classic little-endian pcap expected" % path)
    link = struct.unpack("<I", d[20:24])[0]
    off = 24
    while off + 16 <= len(d):
        sec, usec, incl, orig = struct.unpack("<IIII", d[off:off + 16])
        f = d[off + 16:off + 16 + incl]
        off += 16 + incl
        if link == 1:                      # Ethernet
            if len(f) < 14 or f[12:14] != b"\x08\x00":
                continue
            ip = f[14:]
        elif link == 113:                  # Linux cooked
            if len(f) < 16 or f[14:16] != b"\x08\x00":
                continue
            ip = f[16:]
        else:
            continue
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        ihl = (ip[0] & 0xf) * 4
        tot = struct.unpack(">H", ip[2:4])[0]
        ip = ip[:tot]
        sport, dport = struct.unpack(">HH", ip[ihl:ihl + 4])
        if 4791 not in (dport,):
            continue
        yield sec + usec / 1e6, ip


def icrc(ip):
    ihl = (ip[0] & 0xf) * 4
    h = bytearray(ip[:ihl + 8 + 12])
    h[1] = 0xff
    h[8] = 0xff
    h[10:12] = b"\xff\xff"
    h[ihl + 6:ihl + 8] = b"\xff\xff"
    h[ihl + 8 + 4] = 0xff
    return zlib.crc32(b"\xff" * 8 + bytes(h) + ip[ihl + 8 + 12:-4]) & 0xffffffff


def describe(ip):
    ihl = (ip[0] & 0xf) * 4
    p = ip[ihl + 8:]
    sport, dport = struct.unpack(">HH", ip[ihl:ihl + 4])
    ok = ip[-4:] == struct.pack("<I", icrc(ip))
    s = "%s:%d -> %s:%d id=0x%04x DF=%d len=%d op=0x%02x dqp=0x%06x psn=%d icrc=%s" % (
        socket.inet_ntoa(ip[12:16]), sport, socket.inet_ntoa(ip[16:20]), dport,
        struct.unpack(">H", ip[4:6])[0], ip[6] >> 6 & 1, len(p), p[0], int.from_bytes(p[5:8], "big"),
        int.from_bytes(p[9:12], "big"), "OK" if ok else "BAD")
    if p[0] in (0x64, 0x65) and len(p) >= 44 and p[21] == 7:
        s += " CM attr=0x%04x tid=%s" % (struct.unpack(">H", p[36:38])[0], p[28:36].hex())
    return s


def main():
    cmd = sys.argv[1]
    if cmd == "list":
        for path in sys.argv[2:]:
            for n, (t, ip) in enumerate(frames(path), 1):
                print("%s#%d %s" % (path, n, describe(ip)))
    elif cmd == "dump":
        path, n, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        t, ip = list(frames(path))[n - 1]
        ihl = (ip[0] & 0xf) * 4
        sport, dport = struct.unpack(">HH", ip[ihl:ihl + 4])
        with open(out, "w") as o:
            o.write("# source: %s frame %d (RoCEv2 frames only)\n" % (path.split("/")[-1], n))
            o.write("# %s\n" % describe(ip))
            o.write("# src=%s dst=%s sport=%d dport=%d ipid=0x%04x frag=0x%04x\n" % (
                socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]), sport, dport,
                struct.unpack(">H", ip[4:6])[0], struct.unpack(">H", ip[6:8])[0]))
            for i in range(0, len(ip), 16):
                o.write(ip[i:i + 16].hex() + "\n")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
