package io.jrdma.tools.baseline;

import picocli.CommandLine.Command;

/**
 * {@code jrdma udp-bw}: raw UDP datagram bandwidth over Java NIO.
 */
@Command(name = "udp-bw", sortOptions = false, usageHelpWidth = 100,
        header = "Raw UDP datagram bandwidth (Java NIO).",
        description = {
            "Raw UDP bandwidth: the client sends N datagrams of SIZE bytes (at most 65,507) to",
            "the server's UDP port and reports send-side figures, as perftest's UD client does;",
            "datagrams the server did not receive are reported on stderr.",
        })
public final class UdpBwCommand extends BaselineCommand {

    /** Creates the command (picocli instantiates it). */
    public UdpBwCommand() {
    }

    @Override
    protected BaselineTool tool() {
        return BaselineTool.UDP_BW;
    }
}
