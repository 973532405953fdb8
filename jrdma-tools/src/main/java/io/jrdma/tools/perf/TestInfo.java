package io.jrdma.tools.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * The settings banner perftest prints before a test ({@code ctx_print_test_info}), for the jrdma
 * RDMA tools that imitate {@code ib_*_bw} and {@code ib_*_lat}.
 *
 * <p>Modelled on perftest v4.5-0.20 {@code src/perftest_parameters.c}, {@code ctx_print_test_info},
 * as built by Debian 12 (with relaxed-ordering support); which rows appear depends on the side,
 * the verb and the test kind exactly as there. Build one with {@link #builder(Verb, Kind)}.
 *
 * @param verb the operation tested
 * @param kind bandwidth or latency
 * @param atomicType {@code "FETCH_AND_ADD"} or {@code "CMP_AND_SWAP"} for ATOMIC, else null
 * @param bidirectional {@code -b}
 * @param postList {@code -l}, WRs per post call
 * @param recvPostList receive WRs per post call
 * @param eventDevice the device named in the events line when {@code -e} is used, else null
 * @param eqNum the completion vector of the events line
 * @param dualPort {@code -O}
 * @param device the device name, e.g. {@code siw0}
 * @param numQps {@code -q}
 * @param transportType {@code IW} or {@code IB}
 * @param connectionType {@code RC}, {@code UC}, {@code UD}...
 * @param useSrq {@code --use-srq}
 * @param pcieRelaxOrder {@code ON}, {@code OFF} or {@code Unsupported}
 * @param ibvWrApi whether the {@code ibv_wr_*} API is used
 * @param server whether this is the server (passive) side
 * @param txDepth {@code -t}
 * @param rxDepth {@code -r}
 * @param cqModeration {@code -Q}
 * @param mtu the active MTU in bytes
 * @param linkType {@code Ethernet} or {@code IB}
 * @param gidIndex {@code -x}, or -1 when not printed
 * @param inlineSize {@code -I}, the max inline data
 * @param outReads {@code -o}, outstanding reads (READ and ATOMIC)
 * @param rdmaCmQps {@code -R}
 * @param dataExchange {@code rdma_cm} or {@code Ethernet}
 * @param tos {@code --tos}, or -1 when not printed
 */
public record TestInfo(Verb verb, Kind kind, String atomicType, boolean bidirectional, int postList,
        int recvPostList, String eventDevice, int eqNum, boolean dualPort, String device, int numQps,
        String transportType, String connectionType, boolean useSrq, String pcieRelaxOrder, boolean ibvWrApi,
        boolean server, int txDepth, int rxDepth, int cqModeration, int mtu, String linkType, int gidIndex,
        int inlineSize, int outReads, boolean rdmaCmQps, String dataExchange, int tos) {

    /** The operation a perftest tool measures, with perftest's name for it. */
    public enum Verb {
        /** SEND/RECV: "Send". */
        SEND("Send"),
        /** RDMA WRITE: "RDMA_Write". */
        WRITE("RDMA_Write"),
        /** RDMA READ: "RDMA_Read". */
        READ("RDMA_Read"),
        /** Atomics: "Atomic". */
        ATOMIC("Atomic");

        private final String label;

        Verb(String label) {
            this.label = label;
        }

        /**
         * perftest's name of the verb.
         *
         * @return e.g. {@code "RDMA_Write"}
         */
        public String label() {
            return label;
        }
    }

    /** Bandwidth or latency test. */
    public enum Kind {
        /** An {@code ib_*_bw} test. */
        BW,
        /** An {@code ib_*_lat} test. */
        LAT
    }

    /**
     * Checks the required fields.
     *
     * @throws IllegalArgumentException if verb, kind or device is missing
     */
    public TestInfo {
        if (verb == null || kind == null || device == null) {
            throw new IllegalArgumentException("verb, kind and device are required");
        }
    }

    /**
     * A builder with perftest's defaults for a verb and test kind (client side, RC, one QP,
     * rdma_cm, TX depth 128 for BW and 1 for LAT).
     *
     * @param verb the operation
     * @param kind bandwidth or latency
     * @return the builder
     */
    public static Builder builder(Verb verb, Kind kind) {
        return new Builder(verb, kind);
    }

    /**
     * The title line's test name, e.g. {@code "RDMA_Write BW Test"} or {@code "Send Latency Test"}.
     *
     * @return the title
     */
    public String title() {
        StringBuilder sb = new StringBuilder(verb.label()).append(' ');
        if (verb == Verb.ATOMIC && atomicType != null) {
            sb.append(atomicType).append(' ');
        }
        if (kind == Kind.BW) {
            if (bidirectional) {
                sb.append("Bidirectional ");
            }
            if (postList > 1) {
                sb.append("Post List ");
            }
            sb.append("BW ");
        } else {
            sb.append("Latency ");
        }
        return sb.append("Test").toString();
    }

    /**
     * The banner, from the first dashed rule to the last, one element per line without newlines.
     *
     * @return the lines
     */
    public List<String> lines() {
        List<String> out = new ArrayList<>(24);
        out.add(PerftestFormat.RESULT_LINE);
        out.add(BannerLines.title(title()));
        if (eventDevice != null) {
            out.add(" Test with events. Using " + eventDevice + "_comp" + eqNum);
        }
        out.add(BannerLines.pair("Dual-port", BannerLines.onOff(dualPort), "Device", device));
        out.add(BannerLines.pair("Number of qps", numQps, "Transport type", transportType));
        out.add(BannerLines.pair("Connection type", connectionType, "Using SRQ", BannerLines.onOff(useSrq)));
        out.add(BannerLines.field("PCIe relax order", pcieRelaxOrder));
        out.add(BannerLines.field("ibv_wr* API", BannerLines.onOff(ibvWrApi)));
        if (!server || bidirectional) {
            out.add(BannerLines.field("TX depth", txDepth));
        }
        if (postList > 1) {
            out.add(BannerLines.field("Post List", postList));
        }
        if (recvPostList > 1) {
            out.add(BannerLines.field("Recv Post List", recvPostList));
        }
        if (verb == Verb.SEND && (server || bidirectional)) {
            out.add(BannerLines.field("RX depth", rxDepth));
        }
        if (kind == Kind.BW) {
            out.add(BannerLines.field("CQ Moderation", cqModeration));
        }
        out.add(BannerLines.field("Mtu", mtu + "[B]"));
        out.add(BannerLines.field("Link type", linkType));
        if (gidIndex != -1) {
            out.add(BannerLines.field("GID index", gidIndex));
        }
        if (verb != Verb.READ && verb != Verb.ATOMIC) {
            out.add(BannerLines.field("Max inline data", inlineSize + "[B]"));
        } else {
            out.add(BannerLines.field("Outstand reads", outReads));
        }
        out.add(" rdma_cm QPs\t : " + BannerLines.onOff(rdmaCmQps));
        String exchange = BannerLines.field("Data ex. method", dataExchange);
        if (rdmaCmQps && tos != -1) {
            exchange += " \tTOS    : " + tos;
        }
        out.add(exchange);
        if (rdmaCmQps && server) {
            out.add(PerftestFormat.RESULT_LINE);
            out.add(" Waiting for client rdma_cm QP to connect");
            out.add(" Please run the same command with the IB/RoCE interface IP");
        }
        out.add(PerftestFormat.RESULT_LINE);
        return out;
    }

    /** Builds a {@link TestInfo}; starts from perftest's defaults. */
    public static final class Builder {
        private final Verb verb;
        private final Kind kind;
        private String atomicType;
        private boolean bidirectional;
        private int postList = 1;
        private int recvPostList = 1;
        private String eventDevice;
        private int eqNum;
        private boolean dualPort;
        private String device = "loop0";
        private int numQps = 1;
        private String transportType = "IW";
        private String connectionType = "RC";
        private boolean useSrq;
        private String pcieRelaxOrder = "ON";
        private boolean ibvWrApi;
        private boolean server;
        private int txDepth;
        private int rxDepth = 512;
        private int cqModeration = 100;
        private int mtu = 1024;
        private String linkType = "Ethernet";
        private int gidIndex = -1;
        private int inlineSize;
        private int outReads = 128;
        private boolean rdmaCmQps = true;
        private String dataExchange = "rdma_cm";
        private int tos = -1;

        private Builder(Verb verb, Kind kind) {
            this.verb = verb;
            this.kind = kind;
            this.txDepth = kind == Kind.BW ? 128 : 1;
        }

        /**
         * Sets the atomic operation name.
         *
         * @param v {@code FETCH_AND_ADD} or {@code CMP_AND_SWAP}
         * @return this builder
         */
        public Builder atomicType(String v) {
            atomicType = v;
            return this;
        }

        /**
         * Sets {@code -b}.
         *
         * @param v bidirectional
         * @return this builder
         */
        public Builder bidirectional(boolean v) {
            bidirectional = v;
            return this;
        }

        /**
         * Sets the post list length.
         *
         * @param v WRs per post
         * @return this builder
         */
        public Builder postList(int v) {
            postList = v;
            return this;
        }

        /**
         * Sets the receive post list length.
         *
         * @param v receive WRs per post
         * @return this builder
         */
        public Builder recvPostList(int v) {
            recvPostList = v;
            return this;
        }

        /**
         * Turns on the events line.
         *
         * @param device the device named in it
         * @param eq the completion vector
         * @return this builder
         */
        public Builder events(String device, int eq) {
            eventDevice = device;
            eqNum = eq;
            return this;
        }

        /**
         * Sets {@code -O}.
         *
         * @param v dual port
         * @return this builder
         */
        public Builder dualPort(boolean v) {
            dualPort = v;
            return this;
        }

        /**
         * Sets the device name.
         *
         * @param v e.g. {@code siw0}
         * @return this builder
         */
        public Builder device(String v) {
            device = v;
            return this;
        }

        /**
         * Sets the number of QPs.
         *
         * @param v QPs
         * @return this builder
         */
        public Builder numQps(int v) {
            numQps = v;
            return this;
        }

        /**
         * Sets the transport type.
         *
         * @param v {@code IW} or {@code IB}
         * @return this builder
         */
        public Builder transportType(String v) {
            transportType = v;
            return this;
        }

        /**
         * Sets the connection type.
         *
         * @param v e.g. {@code RC}
         * @return this builder
         */
        public Builder connectionType(String v) {
            connectionType = v;
            return this;
        }

        /**
         * Sets SRQ use.
         *
         * @param v whether an SRQ is used
         * @return this builder
         */
        public Builder useSrq(boolean v) {
            useSrq = v;
            return this;
        }

        /**
         * Sets the PCIe relaxed ordering text.
         *
         * @param v {@code ON}, {@code OFF} or {@code Unsupported}
         * @return this builder
         */
        public Builder pcieRelaxOrder(String v) {
            pcieRelaxOrder = v;
            return this;
        }

        /**
         * Sets whether the {@code ibv_wr_*} API is in use.
         *
         * @param v the switch
         * @return this builder
         */
        public Builder ibvWrApi(boolean v) {
            ibvWrApi = v;
            return this;
        }

        /**
         * Sets the side.
         *
         * @param v true for the server
         * @return this builder
         */
        public Builder server(boolean v) {
            server = v;
            return this;
        }

        /**
         * Sets the TX depth.
         *
         * @param v {@code -t}
         * @return this builder
         */
        public Builder txDepth(int v) {
            txDepth = v;
            return this;
        }

        /**
         * Sets the RX depth.
         *
         * @param v {@code -r}
         * @return this builder
         */
        public Builder rxDepth(int v) {
            rxDepth = v;
            return this;
        }

        /**
         * Sets the CQ moderation.
         *
         * @param v {@code -Q}
         * @return this builder
         */
        public Builder cqModeration(int v) {
            cqModeration = v;
            return this;
        }

        /**
         * Sets the MTU.
         *
         * @param v bytes
         * @return this builder
         */
        public Builder mtu(int v) {
            mtu = v;
            return this;
        }

        /**
         * Sets the link type.
         *
         * @param v {@code Ethernet} or {@code IB}
         * @return this builder
         */
        public Builder linkType(String v) {
            linkType = v;
            return this;
        }

        /**
         * Sets the GID index (-1: not printed).
         *
         * @param v {@code -x}
         * @return this builder
         */
        public Builder gidIndex(int v) {
            gidIndex = v;
            return this;
        }

        /**
         * Sets the max inline data.
         *
         * @param v bytes
         * @return this builder
         */
        public Builder inlineSize(int v) {
            inlineSize = v;
            return this;
        }

        /**
         * Sets the outstanding reads.
         *
         * @param v {@code -o}
         * @return this builder
         */
        public Builder outReads(int v) {
            outReads = v;
            return this;
        }

        /**
         * Sets {@code -R} and the matching exchange method ({@code rdma_cm} or {@code Ethernet}).
         *
         * @param v rdma_cm QPs
         * @return this builder
         */
        public Builder rdmaCm(boolean v) {
            rdmaCmQps = v;
            dataExchange = v ? "rdma_cm" : "Ethernet";
            return this;
        }

        /**
         * Sets the type of service (-1: not printed).
         *
         * @param v {@code --tos}
         * @return this builder
         */
        public Builder tos(int v) {
            tos = v;
            return this;
        }

        /**
         * Builds the banner description.
         *
         * @return the test info
         */
        public TestInfo build() {
            return new TestInfo(verb, kind, atomicType, bidirectional, postList, recvPostList, eventDevice, eqNum,
                    dualPort, device, numQps, transportType, connectionType, useSrq, pcieRelaxOrder, ibvWrApi,
                    server, txDepth, rxDepth, cqModeration, mtu, linkType, gidIndex, inlineSize, outReads,
                    rdmaCmQps, dataExchange, tos);
        }
    }
}
