#!/usr/bin/env python3
"""Cut a rig pcap (rig.sh --pcap, guest NIC on the slirp side) into golden-byte fixtures.

    extract_golden.py PCAP MANIFEST OUTDIR

MANIFEST has one line per TCP connection to extract: `NAME GUEST_PORT PEER_PORT CRC` where the
connection is the one between the guest's GUEST_PORT (0: any) and the host side's PEER_PORT (either
side may have opened it; the pcap must hold exactly one such connection), NAME names the scenario and CRC is `on` when the MPA exchange negotiated CRC.
For each connection it reassembles both TCP directions by sequence number, splits them into the MPA
request/reply and then FPDUs (2-byte ULPDU length, pad to 4, 4-byte CRC trailer), and writes
    OUTDIR/NAME.NN.FROM.KIND.hex     one frame; FROM = siw | peer; comment lines start with '#'
    OUTDIR/pcap/NAME.pcap            the frames of that connection only (what the fixtures came from)
Stdlib only. Fails loudly on gaps in a TCP stream or bytes left over after the last frame.
"""
import os
import struct
import sys

GUEST_IP = bytes([10, 0, 2, 15])
OPS = ["write", "read-req", "read-resp", "send", "send-inv", "send-se", "send-se-inv", "terminate"]


def read_pcap(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), "classic little-endian pcap expected"
    assert struct.unpack("<I", d[20:24])[0] == 1, "Ethernet link type expected"
    header, off, n = d[:24], 24, 0
    while off + 16 <= len(d):
        incl = struct.unpack("<I", d[off + 8:off + 12])[0]
        rec = d[off:off + 16 + incl]
        off += 16 + incl
        n += 1
        yield n, rec, header


def tcp_of(frame):
    """(src ip, sport, dst ip, dport, seq, flags, payload) or None."""
    if len(frame) < 54 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0xF) * 4
    tot = struct.unpack(">H", ip[2:4])[0]
    tcp = ip[ihl:tot]
    sport, dport, seq = struct.unpack(">HHI", tcp[:8])
    doff = (tcp[12] >> 4) * 4
    return ip[12:16], sport, ip[16:20], dport, seq, tcp[13], tcp[doff:]


def reassemble(segs, isn):
    """segs: [(seq, payload)] of one direction; isn: sequence number of the SYN."""
    data = bytearray()
    have = []
    for seq, p in segs:
        rel = (seq - isn - 1) & 0xFFFFFFFF
        if rel + len(p) > len(data):
            data.extend(b"\0" * (rel + len(p) - len(data)))
        data[rel:rel + len(p)] = p
        have.append((rel, rel + len(p)))
    have.sort()
    end = 0
    for a, b in have:
        if a > end:
            raise SystemExit("gap in TCP stream at offset %d" % end)
        end = max(end, b)
    return bytes(data)


def split_frames(stream, crc_on, first_is_mpa=True):
    """[(kind, bytes)]; MPA frame first, then FPDUs. Returns (frames, leftover)."""
    out, off = [], 0
    if first_is_mpa:
        if len(stream) < 20:
            return out, stream
        pdl = struct.unpack(">H", stream[18:20])[0]
        key = stream[:16]
        kind = {b"MPA ID Req Frame": "mpa-req", b"MPA ID Rep Frame": "mpa-rep"}.get(key, "mpa-badkey")
        if stream[16] & 0x20:
            kind += "-reject"
        out.append((kind, stream[:20 + pdl]))
        off = 20 + pdl
        if kind.endswith("reject"):
            return out, stream[off:]
    while off + 2 <= len(stream):
        ln = struct.unpack(">H", stream[off:off + 2])[0]
        total = 2 + ln + (-(2 + ln) & 3) + 4
        if off + total > len(stream):
            break
        f = stream[off:off + total]
        op = f[3] & 0xF
        out.append((OPS[op] if op < len(OPS) else "opcode%d" % op, f))
        off += total
    return out, stream[off:]


def hexlines(b):
    return "\n".join(b[i:i + 16].hex() for i in range(0, len(b), 16))


def main():
    pcap, manifest, outdir = sys.argv[1:4]
    wanted = []
    for line in open(manifest):
        line = line.split("#")[0].split()
        if line:
            wanted.append((line[0], int(line[1]), int(line[2]), line[3] == "on"))
    recs = list(read_pcap(pcap))
    header = recs[0][2]
    os.makedirs(os.path.join(outdir, "pcap"), exist_ok=True)
    for name, gport, pport, crc_on in wanted:
        conn = []
        for n, rec, _ in recs:
            t = tcp_of(rec[16:])
            if not t:
                continue
            sip, sp, dip, dp, seq, fl, pl = t
            gp, pp = (sp, dp) if sip == GUEST_IP else (dp, sp)
            if (sip == GUEST_IP or dip == GUEST_IP) and pp == pport and (gport == 0 or gp == gport):
                conn.append((n, rec, t))
        if not conn:
            raise SystemExit("%s: no frames for ports %d/%d" % (name, gport, pport))
        syn = [c for c in conn if c[2][5] & 0x02 and not c[2][5] & 0x10]
        synack = [c for c in conn if c[2][5] & 0x12 == 0x12]
        assert syn and synack, name + ": handshake not captured"
        init_ip, init_port, isn_i = syn[0][2][0], syn[0][2][1], syn[0][2][4]
        isn_r = synack[0][2][4]
        guest_initiated = init_ip == GUEST_IP
        dirs = {"i": [], "r": []}
        frame_of = {"i": [], "r": []}
        for n, rec, (sip, sp, dip, dp, seq, fl, pl) in conn:
            d = "i" if (sip, sp) == (init_ip, init_port) else "r"
            if pl:
                dirs[d].append((seq, pl))
                frame_of[d].append(n)
        streams = {"i": reassemble(dirs["i"], isn_i), "r": reassemble(dirs["r"], isn_r)}
        with open(os.path.join(outdir, "pcap", name + ".pcap"), "wb") as f:
            f.write(header)
            for n, rec, _ in conn:
                f.write(rec)
        frames = []
        for d in ("i", "r"):
            fr, left = split_frames(streams[d], crc_on)
            who = ("siw" if guest_initiated else "peer") if d == "i" else ("peer" if guest_initiated else "siw")
            if left:
                raise SystemExit("%s: %d bytes left over in the %s stream" % (name, len(left), who))
            off = 0
            for kind, b in fr:
                frames.append((streams[d].find(b, off), d, who, kind, b))
                off += len(b)
        # Order the frames of both directions by the capture frame that completed them.
        order = []
        for fo in frames:
            pos, d, who, kind, b = fo
            last = pos + len(b) - 1
            isn = isn_i if d == "i" else isn_r
            done = min(n for n, rec, (sip, sp, dip, dp, seq, fl, pl) in conn
                       if pl and ((sip, sp) == (init_ip, init_port)) == (d == "i")
                       and ((seq - isn - 1) & 0xFFFFFFFF) <= last < ((seq - isn - 1) & 0xFFFFFFFF) + len(pl))
            order.append((done, fo))
        order.sort(key=lambda x: (x[0], x[1][0]))
        for i, (n, (pos, d, who, kind, b)) in enumerate(order):
            fn = "%s.%02d.%s.%s.hex" % (name, i, who, kind)
            with open(os.path.join(outdir, fn), "w") as f:
                f.write("# scenario %s, frame %d of the connection, sent by %s\n" % (name, i, who))
                f.write("# from pcap/%s.pcap (TCP stream offset %d, first seen in capture frame %d)\n"
                        % (name, pos, n))
                f.write("# %s, %d bytes, crc %s\n" % (kind, len(b), "on" if crc_on else "off"))
                f.write(hexlines(b) + "\n")
        print("%-22s %3d frames  %s" % (name, len(order), " ".join(o[1][3] for o in order)))


if __name__ == "__main__":
    main()
