package io.jrdma.tools.perftest;

import java.io.PrintStream;

import io.jrdma.tools.cli.ToolFailure;
import io.jrdma.tools.perf.PeerAddress;
import io.jrdma.tools.perf.PerfReporter;
import io.jrdma.tools.perf.PerftestFormat;
import io.jrdma.tools.perf.TestInfo.Verb;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.TransportType;

/**
 * The device-dependent settings of one side of a perftest run, as perftest's {@code check_link} and
 * {@code force_dependecies}: the device and port facts, the GID the exchange carries, the MTU both sides
 * agreed on, and the queue depths, CQ moderation, inline size and outstanding reads that follow from the
 * flags and the device's limits.
 */
final class LinkParams {

    /** perftest's default CQ moderation ({@code DEF_CQ_MOD}). */
    static final int DEFAULT_CQ_MOD = 100;

    /** CQ moderation above which size is disabled ({@code MSG_SIZE_CQ_MOD_LIMIT}). */
    static final int CQ_MOD_LIMIT_SIZE = 8192;

    final String deviceName;
    final boolean iwarp;
    /** {@code "Ethernet"} or {@code "IB"}, as the banner says. */
    final String linkType;
    /** The GID index the exchange carries, or -1 on InfiniBand without {@code -x}. */
    final int gidIndex;
    /** That GID's bytes (zeros where {@link #gidIndex} is -1). */
    final byte[] gid;
    final int lid;
    final int mtuBytes;
    final int txDepth;
    final int rxDepth;
    final int cqMod;
    final int inlineSize;
    final int outReads;
    /** Whether SEND bandwidth paces by credits (iWARP, which has no RNR retry). */
    final boolean credits;

    private LinkParams(String deviceName, boolean iwarp, String linkType, int gidIndex, byte[] gid, int lid,
            int mtuBytes, int txDepth, int rxDepth, int cqMod, int inlineSize, int outReads, boolean credits) {
        this.deviceName = deviceName;
        this.iwarp = iwarp;
        this.linkType = linkType;
        this.gidIndex = gidIndex;
        this.gid = gid;
        this.lid = lid;
        this.mtuBytes = mtuBytes;
        this.txDepth = txDepth;
        this.rxDepth = rxDepth;
        this.cqMod = cqMod;
        this.inlineSize = inlineSize;
        this.outReads = outReads;
        this.credits = credits;
    }

    /**
     * Queries the control connection's device and port, agrees the MTU with the peer over {@code comm}, and
     * derives the rest from {@code spec}.
     *
     * @param spec the run's flags
     * @param comm the control connection (its device is the data connections' device)
     * @param reporter where perftest's notices on standard output go
     * @param err where perftest's notices on standard error go
     * @return the settings
     * @throws ToolFailure where the flags ask what the device or transport cannot do
     */
    static LinkParams resolve(PerfSpec spec, CommLink comm, PerfReporter reporter, PrintStream err) {
        PerfTest test = spec.test();
        Context ctx = comm.verbs();
        String deviceName = ctx.device().name();
        boolean iwarp = ctx.device().transport() == TransportType.IWARP;
        DeviceAttributes dev = ctx.queryDevice();
        PortAttributes port = ctx.queryPort(1);
        String linkType = port.linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "IB";
        int gidIndex = spec.gidIndex() >= 0 ? spec.gidIndex() : (port.linkLayer() == LinkLayer.ETHERNET
                ? bestGidIndex(ctx, port.gidTableLength(), spec.gidIndex() == PerfSpec.BEST_IPV6_GID) : -1);
        byte[] gid = new byte[PeerAddress.GID_LENGTH];
        if (gidIndex != -1) {
            try {
                gid = ctx.queryGid(1, gidIndex).raw();
            } catch (RuntimeException e) {
                throw new ToolFailure("GID index " + gidIndex + " does not exist on " + deviceName + " (-x)", e);
            }
        }
        int mtu = spec.mtu() != 0 ? Math.min(spec.mtu(), port.activeMtu().bytes()) : port.activeMtu().bytes();
        int code = comm.exchangeMtu(Mtu.atMost(mtu).value());
        int mtuBytes = Mtu.ofValue(code).bytes();
        boolean timed = spec.timed();
        long iters = spec.iterations();
        int txDepth = spec.txDepth() != 0 ? spec.txDepth()
                : (test.bandwidth() ? PerfTest.DEFAULT_TX_BW : PerfTest.DEFAULT_TX_LAT);
        int rxDepth = spec.rxDepth() != 0 ? spec.rxDepth()
                : (test.usesReceives() ? PerfTest.DEFAULT_RX_SEND : PerfTest.DEFAULT_RX_RDMA);
        if (!timed) {
            txDepth = (int) Math.min(txDepth, iters);
            if (test.usesReceives()) {
                rxDepth = (int) Math.min(rxDepth, iters);
            }
        }
        if (test.usesReceives() && rxDepth % 2 == 1 && !spec.multiSize() && test.bandwidth()) {
            rxDepth++;
        }
        int cqMod = spec.cqMod() != 0 ? spec.cqMod() : DEFAULT_CQ_MOD;
        if (spec.postList() > 1 && spec.cqMod() == 0) {
            cqMod = spec.postList();
            reporter.line(PerftestFormat.RESULT_LINE);
            reporter.line("Post List requested - CQ moderation will be the size of the post list");
        }
        if (spec.postList() > txDepth) {
            throw new ToolFailure("post list size (-l " + spec.postList() + ") must not exceed the TX depth ("
                    + txDepth + "): a list is posted whole");
        }
        if (spec.postList() == 1 && spec.maxSize() > CQ_MOD_LIMIT_SIZE && spec.connection() != QpType.UD
                && !spec.multiSize()
                && !spec.events() && spec.cqMod() == 0) {
            cqMod = 1;
        }
        if (cqMod > txDepth) {
            cqMod = txDepth;
        }
        if (!test.bandwidth()) {
            cqMod = 1;
        }
        boolean reads = test.verb() == Verb.READ || test.verb() == Verb.ATOMIC;
        int maxReads = Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom());
        int outReads = reads ? (spec.outReads() > 0 ? Math.min(spec.outReads(), maxReads) : maxReads) : 1;
        if (reads && spec.outReads() > maxReads) {
            err.println(" Number of outstanding reads is above max = " + maxReads);
            err.println(" Changing to that max value");
        }
        int inlineSize = 0;
        if (spec.inlineSize() > 0 && test.verb() != Verb.READ && test.verb() != Verb.ATOMIC) {
            inlineSize = Math.min(spec.inlineSize(), dev.maxInlineData());
        }
        if (test.verb() == Verb.ATOMIC && dev.atomicCap() == AtomicCap.NONE) {
            throw new ToolFailure(deviceName + " does not support atomics (atomic_cap ATOMIC_NONE; iWARP has none)");
        }
        if (spec.connection() == QpType.UD && spec.maxSize() > mtuBytes) {
            throw new ToolFailure("Max message size in UD cannot be greater than MTU (" + mtuBytes + ")");
        }
        if (spec.connection() == QpType.UD && iwarp) {
            throw new ToolFailure(deviceName + " is iWARP, which carries only RC; UD needs loop or RoCE (-c RC)");
        }
        boolean credits = test == PerfTest.SEND_BW && iwarp;
        return new LinkParams(deviceName, iwarp, linkType, gidIndex, gid, port.lid(), mtuBytes, txDepth, rxDepth,
                cqMod, inlineSize, outReads, credits);
    }

    /**
     * perftest's {@code get_best_gid_index}: the first GID of the port, unless a later one is of the wanted
     * family where the first is not (IPv4-mapped by default, IPv6 with {@code --ipv6}). On rdma_cm
     * connections (jrdma's only kind) the address decides the GID the packets carry; this one is what the
     * banner reports and the exchange carries, as perftest's.
     */
    static int bestGidIndex(Context ctx, int tableLength, boolean ipv6) {
        int best = 0;
        boolean bestV4 = ctx.queryGid(1, 0).isIpv4Mapped();
        for (int i = 1; i < tableLength; i++) {
            boolean v4;
            try {
                v4 = ctx.queryGid(1, i).isIpv4Mapped();
            } catch (RuntimeException e) {
                break; // the populated part of the table ends
            }
            if (v4 != bestV4 && v4 != ipv6) {
                best = i;
                bestV4 = v4;
            }
        }
        return best;
    }
}
