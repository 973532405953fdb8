package io.jrdma.rxe.net;

import io.jrdma.internal.capture.PacketTap;
import java.lang.foreign.MemorySegment;

/**
 * Writes rxe packets to a capture exactly as they travel: IPv4 (identification 0, DF: what jrdma's
 * sockets send and its ICRC covers) or IPv6 around UDP around the packet, ICRC included. Received
 * IPv4 packets carry the identification and flags the ICRC check solved for, so the ICRC in the
 * capture checks too.
 */
public final class Taps {
    private Taps() {
    }

    /**
     * A packet {@code port} sends to {@code peer} from UDP port {@code srcPort}.
     *
     * @param tap the capture
     * @param port the device port
     * @param srcPort the UDP source port
     * @param peer the destination
     * @param seg the packet (BTH .. ICRC)
     * @param length its length
     */
    public static void sent(PacketTap tap, UdpPort port, int srcPort, Peer peer, MemorySegment seg, int length) {
        if (peer.isIpv6()) {
            tap.roce6(port.high(), port.low(), peer.high(), peer.low(), srcPort, peer.address().getPort(), seg, 0,
                    length);
        } else {
            tap.roce4(port.ipv4(), peer.ipv4(), srcPort, peer.address().getPort(), 0, 0x4000, seg, 0, length);
        }
    }

    /**
     * A packet {@code port} received.
     *
     * @param tap the capture
     * @param port the device port
     * @param v4 whether it came over IPv4
     * @param srcIpv4 the sender's IPv4 address
     * @param srcHigh the sender's IPv6 address, bytes 0-7
     * @param srcLow the sender's IPv6 address, bytes 8-15
     * @param srcPort the sender's UDP port
     * @param ipId the solved IPv4 identification
     * @param ipFlags the solved IPv4 flags
     * @param seg the packet (BTH .. ICRC)
     * @param off where it starts
     * @param length its length
     */
    public static void received(PacketTap tap, UdpPort port, boolean v4, int srcIpv4, long srcHigh, long srcLow,
            int srcPort, int ipId, int ipFlags, MemorySegment seg, long off, int length) {
        if (v4) {
            tap.roce4(srcIpv4, port.ipv4(), srcPort, port.localPort(), ipId, ipFlags, seg, off, length);
        } else {
            tap.roce6(srcHigh, srcLow, port.high(), port.low(), srcPort, port.localPort(), seg, off, length);
        }
    }
}
