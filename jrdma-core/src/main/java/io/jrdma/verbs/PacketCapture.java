package io.jrdma.verbs;

import java.nio.file.Path;

/**
 * A running packet capture ({@link Context#startCapture}, {@link QueuePair#startCapture}): what a device
 * or a queue pair sends and receives, written as a pcap file (link type raw IP) that Wireshark and
 * tshark decode. There is no Linux verb for this; it plays the part of {@code tcpdump -i rxe0} or
 * {@code ibdump}. RoCEv2 packets are written as IPv4/IPv6 + UDP 4791 around the packet, ICRC included;
 * iWARP streams as TCP segments with consistent sequence numbers, starting with a synthetic handshake
 * and the connection's MPA request and reply so the iWARP dissectors recognise the stream; the loop
 * provider writes the RoCEv2 packets it would have sent had it a wire.
 *
 * <p>A debugging aid: while it runs, the engine copies every packet into the file's buffer.
 */
public interface PacketCapture extends AutoCloseable {
    /**
     * The pcap file. Linux: the {@code -w} file of {@code tcpdump} or {@code ibdump}.
     *
     * @return its path
     */
    Path file();

    /**
     * The packets written so far. Linux: what {@code tcpdump} reports as packets captured.
     *
     * @return the count
     */
    long packets();

    /** Stops the capture and completes the file. Idempotent. Linux: stopping {@code tcpdump}. */
    @Override
    void close();
}
