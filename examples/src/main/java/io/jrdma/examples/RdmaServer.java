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
 * The Java twin of librdmacm's {@code examples/rdma_server.c}: with the synchronous rdma_cm API
 * ({@code rdma_create_ep}, {@code rdma_get_request}, a blocking {@code rdma_accept}) it waits for one
 * client, receives its 16-byte message and answers with one. Run {@code RdmaClient} against it.
 *
 * <pre>
 * usage: RdmaServer [-p port_number] [-d device]
 * </pre>
 */
public final class RdmaServer {
    /** rdma_server's default port. */
    public static final String PORT = "7471";
    /** The size of the examples' messages. */
    public static final int MSG = 16;

    private RdmaServer() {
    }

    /** Runs the server: {@code -p port} (default 7471), {@code -d device} (default: every device). */
    public static void main(String[] args) throws InterruptedException {
        String port = PORT;
        String device = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "-p" -> port = args[i + 1];
                case "-d" -> device = args[i + 1];
                default -> {
                    System.out.println("usage: RdmaServer [-p port_number] [-d device]");
                    System.exit(1);
                }
            }
        }
        System.out.println("rdma_server: start");
        try (RdmaCm cm = device == null ? RdmaCm.open() : RdmaCm.open(device)) {
            byte[] got = run(cm, port, "rdma_server msg!".getBytes(StandardCharsets.US_ASCII));
            System.out.println("rdma_server: received '" + new String(got, StandardCharsets.US_ASCII).trim() + "'");
        }
        System.out.println("rdma_server: end 0");
    }

    // tag::run[]
    /** Serves one client on {@code port}: returns the message it sent and answers with {@code reply}. */
    public static byte[] run(RdmaCm cm, String port, byte[] reply) throws InterruptedException {
        RdmaAddrInfo res = RdmaAddrInfo.resolve(null, port, true, PortSpace.TCP).get(0);
        CmId listenId = cm.createEp(res, null, null);
        try {
            listenId.listen(0);
            CmId id = listenId.getRequest(RdmaVerbs.TIMEOUT);
            if (id == null) {
                throw new IllegalStateException("rdma_get_request: no client within " + RdmaVerbs.TIMEOUT);
            }
            try {
                RdmaVerbs.Endpoint ep = RdmaVerbs.createQp(id, new QpCap(1, 1, 1, 1, MSG));
                int sendFlags = ep.qp().initAttr().cap().maxInlineData() >= MSG ? SendFlags.INLINE : 0;
                MemorySegment recvMsg = Arena.ofAuto().allocate(MSG);
                MemorySegment sendMsg = Arena.ofAuto().allocate(MSG);
                MemorySegment.copy(reply, 0, sendMsg, ValueLayout.JAVA_BYTE, 0, Math.min(MSG, reply.length));
                MemoryRegion mr = RdmaVerbs.regMsgs(ep, recvMsg);
                MemoryRegion sendMr = RdmaVerbs.regMsgs(ep, sendMsg);

                RdmaVerbs.postRecv(ep, 0, mr);
                id.accept(ConnParam.defaults()); // returns once established (synchronous id)
                RdmaVerbs.getRecvComp(ep);
                RdmaVerbs.postSend(ep, 0, sendMr, sendFlags);
                RdmaVerbs.getSendComp(ep);
                id.disconnect();
                return recvMsg.toArray(ValueLayout.JAVA_BYTE);
            } finally {
                id.destroyQp();
                id.destroy();
            }
        } finally {
            listenId.destroy();
        }
    }
    // end::run[]
}
