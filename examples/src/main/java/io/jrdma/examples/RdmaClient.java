package io.jrdma.examples;

import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaAddrInfo;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.SendFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The Java twin of librdmacm's {@code examples/rdma_client.c}: with the synchronous rdma_cm API
 * ({@code rdma_getaddrinfo}, {@code rdma_create_ep}, a blocking {@code rdma_connect}) it connects to
 * {@link RdmaServer}, sends a 16-byte message and receives the answer.
 *
 * <pre>
 * usage: RdmaClient [-s server_address] [-p port_number] [-d device]
 * </pre>
 */
public final class RdmaClient {
    private RdmaClient() {
    }

    /** Runs the client: {@code -s server} (default 127.0.0.1), {@code -p port} (7471), {@code -d device}. */
    public static void main(String[] args) throws InterruptedException {
        String server = "127.0.0.1";
        String port = RdmaServer.PORT;
        String device = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "-s" -> server = args[i + 1];
                case "-p" -> port = args[i + 1];
                case "-d" -> device = args[i + 1];
                default -> {
                    System.out.println("usage: RdmaClient [-s server_address] [-p port_number] [-d device]");
                    System.exit(1);
                }
            }
        }
        System.out.println("rdma_client: start");
        try (RdmaCm cm = device == null ? RdmaCm.open() : RdmaCm.open(device)) {
            byte[] got = run(cm, server, port, "rdma_client msg!".getBytes(StandardCharsets.US_ASCII));
            System.out.println("rdma_client: received '" + new String(got, StandardCharsets.US_ASCII).trim() + "'");
        }
        System.out.println("rdma_client: end 0");
    }

    // tag::run[]
    /** Sends {@code msg} to the server at {@code server}:{@code port}; returns its answer. */
    public static byte[] run(RdmaCm cm, String server, String port, byte[] msg) throws InterruptedException {
        RdmaAddrInfo res = RdmaAddrInfo.resolve(server, port, false, PortSpace.TCP).get(0);
        CmId id = cm.createEp(res, null, null); // address and route resolved
        try {
            RdmaVerbs.Endpoint ep = RdmaVerbs.createQp(id, new QpCap(1, 1, 1, 1, RdmaServer.MSG));
            int sendFlags = ep.qp().initAttr().cap().maxInlineData() >= RdmaServer.MSG ? SendFlags.INLINE : 0;
            MemorySegment recvMsg = Arena.ofAuto().allocate(RdmaServer.MSG);
            MemorySegment sendMsg = Arena.ofAuto().allocate(RdmaServer.MSG);
            MemorySegment.copy(msg, 0, sendMsg, ValueLayout.JAVA_BYTE, 0, Math.min(RdmaServer.MSG, msg.length));
            MemoryRegion mr = RdmaVerbs.regMsgs(ep, recvMsg);
            MemoryRegion sendMr = RdmaVerbs.regMsgs(ep, sendMsg);

            RdmaVerbs.postRecv(ep, 0, mr);
            id.connect(ConnParam.defaults()); // returns once established (synchronous id)
            RdmaVerbs.postSend(ep, 0, sendMr, sendFlags);
            RdmaVerbs.getSendComp(ep);
            RdmaVerbs.getRecvComp(ep);
            id.disconnect();
            return recvMsg.toArray(ValueLayout.JAVA_BYTE);
        } finally {
            id.destroyQp();
            id.destroy();
        }
    }
    // end::run[]
}
