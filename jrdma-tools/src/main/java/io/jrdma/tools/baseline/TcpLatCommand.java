package io.jrdma.tools.baseline;

import picocli.CommandLine.Command;

/**
 * {@code jrdma tcp-lat}: raw TCP ping-pong latency over Java NIO, the floor for jrdma's iWARP latency.
 */
@Command(name = "tcp-lat", sortOptions = false, usageHelpWidth = 100,
        header = "Raw TCP ping-pong latency (Java NIO, loopback floor for iWARP).",
        description = {
            "Raw TCP latency: a ping-pong of SIZE bytes each way on one connection (TCP_NODELAY,",
            "direct buffers). A sample is the time between two sends, one round trip; the table",
            "reports half of it, as perftest's ib_write_lat and ib_send_lat do.",
            "Busy-polls by default; --blocking and -e/--events sleep instead.",
        })
public final class TcpLatCommand extends BaselineCommand {

    /** Creates the command (picocli instantiates it). */
    public TcpLatCommand() {
    }

    @Override
    protected BaselineTool tool() {
        return BaselineTool.TCP_LAT;
    }
}
