package io.jrdma.examples;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One-sided RDMA with an rkey exchange, on the librdmacm-style channel API. The server registers a
 * buffer for remote READ and WRITE and tells the client where it is — address, rkey and length — in
 * the private data of its accept ({@code rdma_accept}'s {@code conn_param.private_data}); the client
 * finds them in its ESTABLISHED event, RDMA READs the first half of the buffer (the server's data),
 * RDMA WRITEs the second half (its own), and SENDs a one-word "done" so the server knows the WRITE
 * landed: RDMA WRITE raises no completion at the target. rping does the same with SENDs of the
 * advertisement instead of private data.
 *
 * <pre>
 * server                                       client
 *   register buf (LOCAL_WRITE|REMOTE_*)
 *   post RECV for "done"
 *   accept(private data: addr|rkey|len) ---->  ESTABLISHED: private data -> addr, rkey, len
 *                                              RDMA READ  buf[0, len/2)      -> local
 *                                              RDMA WRITE local              -> buf[len/2, len)
 *   RECV completes: check buf[len/2, len) <--- SEND "done"
 * </pre>
 *
 * <p>Runs over any RC transport: {@code ReadWriteExample [-d device] [-p port] server|client [address]}.
 */
public final class ReadWriteExample {
    /** The size of the server's buffer. */
    public static final int SIZE = 64 * 1024;
    /** The example's default port. */
    public static final int PORT = 7472;
    private static final long DONE = 0x646f6e65L; // "done"

    private ReadWriteExample() {
    }

    /**
     * Where the server's buffer is, as the accept's private data carries it (16 bytes, big-endian).
     *
     * @param address the buffer's address (its {@code mr.address()})
     * @param rkey the rkey that opens it
     * @param length its length
     */
    public record Advert(long address, int rkey, int length) {
        /** The encoded length. */
        static final int BYTES = 16;

        byte[] encode() {
            return ByteBuffer.allocate(BYTES).putLong(address).putInt(rkey).putInt(length).array();
        }

        static Advert decode(byte[] privateData) {
            if (privateData.length < BYTES) {
                throw new IllegalStateException("the server sent " + privateData.length + " bytes of private data, "
                        + "not an advertisement");
            }
            ByteBuffer b = ByteBuffer.wrap(privateData);
            return new Advert(b.getLong(), b.getInt(), b.getInt());
        }
    }

    /**
     * What the client saw.
     *
     * @param advert the server's advertisement
     * @param readMatches whether the READ brought the server's pattern
     * @param bytesRead bytes read
     * @param bytesWritten bytes written
     */
    public record Result(Advert advert, boolean readMatches, long bytesRead, long bytesWritten) {
    }

    static byte serverByte(int i) {
        return (byte) (i * 7 + 3);
    }

    static byte clientByte(int i) {
        return (byte) (i * 13 + 1);
    }

    /**
     * Serves one client on {@code at}: exposes a buffer, waits for the client's "done", and checks that
     * the client's WRITE landed in the second half.
     *
     * @param cm the connection manager
     * @param at the address to listen on
     * @param listening run once the server listens
     * @return whether every written byte is the client's
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean serve(RdmaCm cm, InetSocketAddress at, Runnable listening) throws InterruptedException {
        try (EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            CmId listen = ch.createId(null, PortSpace.TCP);
            try {
                listen.bind(at);
                listen.listen(1);
                listening.run();
                CmEvent req = Completions.expect(ch, CmEventType.CONNECT_REQUEST);
                CmId id = req.id();
                ProtectionDomain pd = id.verbs().allocPd();
                CompletionQueue cq = id.verbs().createCq(8);
                id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(4, 4)));
                MemorySegment buf = arena.allocate(SIZE, 4096);
                for (int i = 0; i < SIZE / 2; i++) {
                    buf.set(ValueLayout.JAVA_BYTE, i, serverByte(i));
                }
                MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_READ
                        | Access.REMOTE_WRITE);
                MemorySegment msg = arena.allocate(8);
                MemoryRegion msgMr = pd.registerMemory(msg, Access.LOCAL_WRITE);
                id.qp().postRecv(new RecvWr().wrId(1).sg(msgMr, 0, 8)); // before accept: the peer may send at once
                id.accept(ConnParam.defaults().withPrivateData(new Advert(mr.address(), mr.rkey(), SIZE).encode()));
                Completions.expect(ch, CmEventType.ESTABLISHED);
                Completions.next(cq, new WorkCompletion());
                boolean landed = msg.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) == DONE;
                for (int i = SIZE / 2; i < SIZE && landed; i++) {
                    landed = buf.get(ValueLayout.JAVA_BYTE, i) == clientByte(i - SIZE / 2);
                }
                Completions.expect(ch, CmEventType.DISCONNECTED);
                id.disconnect(); // answers the peer's disconnect, as librdmacm applications do
                id.destroyQp();
                mr.close();
                msgMr.close();
                cq.close();
                pd.close();
                id.destroy();
                return landed;
            } finally {
                listen.destroy();
            }
        }
    }

    /**
     * Connects to {@code server}, READs the first half of its buffer, WRITEs the second half and SENDs
     * "done".
     *
     * @param cm the connection manager
     * @param server the server's address
     * @return what the client saw
     * @throws InterruptedException if interrupted while waiting
     */
    public static Result run(RdmaCm cm, InetSocketAddress server) throws InterruptedException {
        try (EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            CmId id = ch.createId(null, PortSpace.TCP);
            try {
                id.resolveAddr(null, server, Duration.ofSeconds(2));
                Completions.expect(ch, CmEventType.ADDR_RESOLVED);
                id.resolveRoute(Duration.ofSeconds(2));
                Completions.expect(ch, CmEventType.ROUTE_RESOLVED);
                ProtectionDomain pd = id.verbs().allocPd();
                CompletionQueue cq = id.verbs().createCq(8);
                id.createQp(pd, QpInitAttr.rc(cq, QpCap.of(4, 4)));
                MemorySegment local = arena.allocate(SIZE, 4096);
                MemoryRegion mr = pd.registerMemory(local, Access.LOCAL_WRITE);
                id.connect(ConnParam.defaults());
                CmEvent est = Completions.expect(ch, CmEventType.ESTABLISHED);
                Advert ad = Advert.decode(est.privateData());
                int half = ad.length() / 2;
                WorkCompletion wc = new WorkCompletion();

                // RDMA READ: the server's first half into our first half.
                id.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .sg(mr, 0, half).rdma(ad.address(), ad.rkey()));
                Completions.next(cq, wc);
                boolean matches = true;
                for (int i = 0; i < half && matches; i++) {
                    matches = local.get(ValueLayout.JAVA_BYTE, i) == serverByte(i);
                }

                // RDMA WRITE: our pattern into the server's second half; then SEND "done".
                for (int i = 0; i < half; i++) {
                    local.set(ValueLayout.JAVA_BYTE, half + i, clientByte(i));
                }
                id.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .sg(mr, half, half).rdma(ad.address() + half, ad.rkey()));
                Completions.next(cq, wc);
                local.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, DONE);
                id.qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sg(mr, 0, 8));
                Completions.next(cq, wc);

                id.disconnect();
                Completions.expect(ch, CmEventType.DISCONNECTED);
                id.destroyQp();
                mr.close();
                cq.close();
                pd.close();
                return new Result(ad, matches, half, half);
            } finally {
                id.destroy();
            }
        }
    }

    /**
     * Runs one side: {@code [-d device] [-p port] server [address]} or {@code ... client address}.
     *
     * @param args the command line
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        String device = null;
        int port = PORT;
        int i = 0;
        for (; i + 1 < args.length && args[i].startsWith("-"); i += 2) {
            if (args[i].equals("-d")) {
                device = args[i + 1];
            } else {
                port = Integer.parseInt(args[i + 1]);
            }
        }
        if (i >= args.length) {
            System.out.println("usage: ReadWriteExample [-d device] [-p port] server [address] | client address");
            System.exit(1);
        }
        boolean serverSide = args[i].equals("server");
        String host = i + 1 < args.length ? args[i + 1] : serverSide ? "0.0.0.0" : "127.0.0.1";
        try (RdmaCm cm = device == null ? RdmaCm.open() : RdmaCm.open(device)) {
            InetSocketAddress at = new InetSocketAddress(host, port);
            if (serverSide) {
                boolean ok = serve(cm, at, () -> System.out.println("listening on " + at));
                System.out.println(ok ? "the client's WRITE landed" : "the written bytes are wrong");
                System.exit(ok ? 0 : 1);
            } else {
                Result r = run(cm, at);
                System.out.printf("server buffer at 0x%x rkey 0x%x: READ %d bytes (%s), WROTE %d bytes%n",
                        r.advert().address(), r.advert().rkey(), r.bytesRead(), r.readMatches() ? "verified" : "WRONG",
                        r.bytesWritten());
                System.exit(r.readMatches() ? 0 : 1);
            }
        }
    }
}
