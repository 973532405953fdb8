package io.jrdma.disni.apps;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedList;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.RdmaActiveEndpointGroup;
import com.ibm.disni.RdmaEndpointFactory;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * A DiSNI application written against DiSNI 2.1's API only (the class-path test compiles this very file against
 * the real disni-2.1.jar): the client sends the address and key of a buffer; the server RDMA-READs it in growing
 * pieces through one prepared {@link SVCPostSend} whose entry length it edits between executions, then SENDs a
 * reply. Each side prints what happened; the integration tests compare the lines.
 *
 * <p>Usage: {@code PingPong server|client ADDRESS PORT}.
 */
public final class PingPong implements RdmaEndpointFactory<PingPong.Endpoint> {
    static final String TEXT = "DiSNI on jrdma: one-sided and two-sided";
    static final int SIZE = 256;
    static final long WAIT_S = 30;

    private RdmaActiveEndpointGroup<Endpoint> group;

    @Override
    public Endpoint createEndpoint(RdmaCmId id, boolean serverSide) throws IOException {
        return new Endpoint(group, id, serverSide);
    }

    public static void main(String[] args) throws Exception {
        PingPong app = new PingPong();
        app.group = new RdmaActiveEndpointGroup<>(1000, false, 16, 2, 64);
        app.group.init(app);
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        if (args[0].equals("server")) {
            app.server(address);
        } else {
            app.client(address);
        }
        app.group.close();
        System.out.println("closed");
    }

    private void server(InetSocketAddress address) throws Exception {
        RdmaServerEndpoint<Endpoint> listener = group.createServerEndpoint();
        listener.bind(address, 4);
        System.out.println("server bound");
        Endpoint ep = listener.accept();
        System.out.println("server accepted");
        IbvWC wc = ep.take();
        System.out.println("server received " + wc.getByte_len() + " bytes, opcode " + wc.getOpcode());
        ByteBuffer info = ep.recvBuf.duplicate().clear();
        long addr = info.getLong();
        int length = info.getInt();
        int key = info.getInt();

        IbvSendWR read = new IbvSendWR();
        read.setWr_id(10);
        read.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
        read.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        read.getRdma().setRemote_addr(addr);
        read.getRdma().setRkey(key);
        read.setSg_list(sges(ep.dataMr, 1));
        LinkedList<IbvSendWR> reads = new LinkedList<>();
        reads.add(read);
        SVCPostSend call = ep.postSend(reads);
        for (int n = 8; n <= length; n *= 2) {
            call.getWrMod(0).getSgeMod(0).setLength(n);
            call.getWrMod(0).setWr_id(10 + n);
            call.execute();
            IbvWC done = ep.take();
            byte[] bytes = new byte[n];
            ep.dataBuf.duplicate().clear().get(bytes);
            String got = new String(bytes, StandardCharsets.US_ASCII);
            System.out.println("server read " + n + " bytes, wr_id " + done.getWr_id() + ", status "
                    + done.getStatus() + ": " + got);
        }
        call.free();
        ep.sendBuf.clear().put("pong".getBytes(StandardCharsets.US_ASCII)).clear();
        ep.postSend(ep.sendList(4)).execute().free();
        System.out.println("server sent, status " + ep.take().getStatus());
        ep.close();
        listener.close();
    }

    private void client(InetSocketAddress address) throws Exception {
        Endpoint ep = group.createEndpoint();
        ep.connect(address, 5000);
        System.out.println("client connected");
        byte[] text = TEXT.getBytes(StandardCharsets.US_ASCII);
        ep.dataBuf.clear().put(text).clear();
        ep.sendBuf.clear().putLong(ep.dataMr.getAddr()).putInt(text.length).putInt(ep.dataMr.getLkey()).clear();
        ep.postSend(ep.sendList(16)).execute().free();
        IbvWC sent = ep.take();
        System.out.println("client sent, opcode " + sent.getOpcode() + ", status " + sent.getStatus());
        IbvWC reply = ep.take();
        byte[] r = new byte[reply.getByte_len()];
        ep.recvBuf.duplicate().clear().get(r);
        System.out.println("client received " + new String(r, StandardCharsets.US_ASCII) + ", opcode "
                + reply.getOpcode());
        // The server disconnects once its SEND is acknowledged. A client that closed on its receive
        // completion could disconnect before its ACK of that SEND left (the responder completes, then
        // acknowledges), and the server's SEND would flush: wait for the server's disconnect, bounded.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!ep.isClosed() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        ep.close();
    }

    static LinkedList<IbvSge> sges(IbvMr mr, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr());
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> list = new LinkedList<>();
        list.add(sge);
        return list;
    }

    /** An endpoint with three registered direct buffers and one receive posted before it connects. */
    public static final class Endpoint extends RdmaActiveEndpoint {
        final ByteBuffer dataBuf = ByteBuffer.allocateDirect(SIZE);
        final ByteBuffer sendBuf = ByteBuffer.allocateDirect(SIZE);
        final ByteBuffer recvBuf = ByteBuffer.allocateDirect(SIZE);
        IbvMr dataMr;
        IbvMr sendMr;
        IbvMr recvMr;
        private final ArrayBlockingQueue<IbvWC> events = new ArrayBlockingQueue<>(64);

        Endpoint(RdmaActiveEndpointGroup<Endpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        public void init() throws IOException {
            super.init();
            dataMr = registerMemory(dataBuf).execute().free().getMr();
            sendMr = registerMemory(sendBuf).execute().free().getMr();
            recvMr = registerMemory(recvBuf).execute().free().getMr();
            IbvRecvWR recv = new IbvRecvWR();
            recv.setWr_id(1);
            recv.setSg_list(sges(recvMr, SIZE));
            LinkedList<IbvRecvWR> recvs = new LinkedList<>();
            recvs.add(recv);
            postRecv(recvs).execute().free();
        }

        LinkedList<IbvSendWR> sendList(int length) {
            IbvSendWR send = new IbvSendWR();
            send.setWr_id(2);
            send.setOpcode(IbvSendWR.IBV_WR_SEND);
            send.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            send.setSg_list(sges(sendMr, length));
            LinkedList<IbvSendWR> list = new LinkedList<>();
            list.add(send);
            return list;
        }

        @Override
        public void dispatchCqEvent(IbvWC wc) throws IOException {
            events.add(wc.clone());
        }

        IbvWC take() throws InterruptedException, IOException {
            IbvWC wc = events.poll(WAIT_S, TimeUnit.SECONDS);
            if (wc == null) {
                throw new IOException("no completion within " + WAIT_S + " s");
            }
            return wc;
        }
    }
}
