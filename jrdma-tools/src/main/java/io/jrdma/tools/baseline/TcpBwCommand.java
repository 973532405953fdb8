package io.jrdma.tools.baseline;

import picocli.CommandLine.Command;

/**
 * {@code jrdma tcp-bw}: raw TCP streaming bandwidth over Java NIO, the floor for jrdma's iWARP bandwidth.
 */
@Command(name = "tcp-bw", sortOptions = false, usageHelpWidth = 100,
        header = "Raw TCP streaming bandwidth (Java NIO, loopback floor for iWARP).",
        description = {
            "Raw TCP bandwidth: the client streams N messages of SIZE bytes on one connection",
            "(TCP_NODELAY, direct buffers, one write per message) and the server confirms the end.",
            "Output as perftest's ib_write_bw. A write completes when the kernel took it; the last",
            "completes when the server has received every byte. So the average is end to end,",
            "while BW peak, perftest's best window of consecutive messages, mostly shows how fast",
            "writes fill the socket buffer.",
            "",
            "Loopback TCP segments are at most 65,483 bytes (MSS): a 65,536-byte write leaves a",
            "small tail segment and streams several times slower than MSS-sized writes, so compare",
            "sizes, e.g. --sizes 4K,65483,64K,1M.",
        })
public final class TcpBwCommand extends BaselineCommand {

    /** Creates the command (picocli instantiates it). */
    public TcpBwCommand() {
    }

    @Override
    protected BaselineTool tool() {
        return BaselineTool.TCP_BW;
    }
}
