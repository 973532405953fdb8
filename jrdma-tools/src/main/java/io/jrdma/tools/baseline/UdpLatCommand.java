package io.jrdma.tools.baseline;

import picocli.CommandLine.Command;

/**
 * {@code jrdma udp-lat}: raw UDP ping-pong latency over Java NIO, the floor for jrdma's RoCE latency.
 */
@Command(name = "udp-lat", sortOptions = false, usageHelpWidth = 100,
        header = "Raw UDP ping-pong latency (Java NIO, loopback floor for RoCE).",
        description = {
            "Raw UDP latency: a ping-pong of one SIZE-byte datagram each way (at most 65,507).",
            "A sample is one round trip, reported halved as perftest's ib_send_lat does.",
            "Busy-polls by default; --blocking and -e/--events sleep instead.",
        })
public final class UdpLatCommand extends BaselineCommand {

    /** Creates the command (picocli instantiates it). */
    public UdpLatCommand() {
    }

    @Override
    protected BaselineTool tool() {
        return BaselineTool.UDP_LAT;
    }
}
