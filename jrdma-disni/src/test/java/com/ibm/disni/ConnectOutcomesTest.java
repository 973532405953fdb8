package com.ibm.disni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedList;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import io.jrdma.disni.RdmaConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link RdmaEndpoint#connect} does on loop0 (IB CM semantics, in one JVM): it connects, and it ends with an
 * {@link RdmaConnectException} on a reject (with the peer's private data) and on a silent peer (after its timeout);
 * a failed endpoint closes cleanly.
 */
@Timeout(120)
class ConnectOutcomesTest {
    private static final AtomicInteger PORTS = new AtomicInteger(26000 + (int) (ProcessHandle.current().pid() % 997));
    private static final int WAIT_MS = 10_000;

    /** An active endpoint that queues copies of its completions. */
    static final class Ep extends RdmaActiveEndpoint {
        final ArrayBlockingQueue<IbvWC> events = new ArrayBlockingQueue<>(16);

        Ep(RdmaActiveEndpointGroup<Ep> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        public void dispatchCqEvent(IbvWC wc) {
            events.add(wc.clone());
        }
    }

    private static RdmaActiveEndpointGroup<Ep> group() throws IOException {
        RdmaActiveEndpointGroup<Ep> g = new RdmaActiveEndpointGroup<>(200, false, 16, 2, 32);
        g.init((id, serverSide) -> new Ep(g, id, serverSide));
        return g;
    }

    /** A listener at the verbs level that answers each request with {@code answer}. */
    private static CompletableFuture<Void> listener(RdmaEventChannel ch, RdmaCmId id, InetSocketAddress at,
            Answer answer) throws IOException {
        id.bindAddr(at);
        id.listen(4);
        return CompletableFuture.runAsync(() -> {
            try {
                RdmaCmEvent e = ch.getCmEvent(WAIT_MS);
                assertThat(e).isNotNull();
                assertThat(e.getEvent()).isEqualTo(RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal());
                answer.on(e.getConnIdPriv());
                e.ackEvent();
            } catch (IOException x) {
                throw new IllegalStateException(x);
            }
        });
    }

    interface Answer {
        void on(RdmaCmId request) throws IOException;
    }

    @Test
    void aRejectReachesTheApplicationWithItsPrivateData() throws Exception {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", PORTS.getAndIncrement());
        RdmaEventChannel ch = RdmaEventChannel.createEventChannel();
        RdmaCmId listen = ch.createId(RdmaCm.RDMA_PS_TCP);
        byte[] why = {0x01, 0x02, 0x7F, (byte) 0xFE, 42};
        CompletableFuture<Void> server = listener(ch, listen, at, r -> {
            r.reject(why);
            r.destroyId();
        });
        RdmaActiveEndpointGroup<Ep> g = group();
        Ep ep = g.createEndpoint();
        RdmaConnectException e = catchThrowableOfType(RdmaConnectException.class, () -> ep.connect(at, 5000));
        assertThat(e).isNotNull().isInstanceOf(IOException.class);
        assertThat(e.eventType()).isEqualTo(RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal());
        assertThat(e.status()).as("IB consumer reject").isEqualTo(28);
        assertThat(e.privateData()).startsWith(why);
        assertThat(e.getMessage()).contains("RDMA_CM_EVENT_REJECTED");
        server.get(WAIT_MS, TimeUnit.MILLISECONDS);
        ep.close();
        g.close();
        listen.destroyId();
        ch.destroyEventChannel();
    }

    @Test
    void connectToASilentPeerEndsAfterItsTimeout() throws Exception {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", PORTS.getAndIncrement());
        RdmaEventChannel ch = RdmaEventChannel.createEventChannel();
        RdmaCmId listen = ch.createId(RdmaCm.RDMA_PS_TCP);
        RdmaCmId[] silent = new RdmaCmId[1];
        CompletableFuture<Void> server = listener(ch, listen, at, r -> silent[0] = r);
        RdmaActiveEndpointGroup<Ep> g = group();
        Ep ep = g.createEndpoint();
        long t0 = System.nanoTime();
        RdmaConnectException e = catchThrowableOfType(RdmaConnectException.class, () -> ep.connect(at, 1500));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(e).isNotNull();
        assertThat(e.eventType()).isIn(RdmaCmEvent.EventType.RDMA_CM_EVENT_UNREACHABLE.ordinal(),
                RdmaConnectException.NO_EVENT);
        assertThat(ms).as("ended after the 1500 ms timeout, not before and not much later").isBetween(1400L, 8000L);
        server.get(WAIT_MS, TimeUnit.MILLISECONDS);
        ep.close();
        g.close();
        silent[0].destroyId();
        listen.destroyId();
        ch.destroyEventChannel();
    }

    @Test
    void aConnectionOfAPassiveGroupIsPolledByTheApplication() throws Exception {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", PORTS.getAndIncrement());
        RdmaPassiveEndpointGroup<RdmaEndpoint> sg = new RdmaPassiveEndpointGroup<>(200, 8, 1, 16);
        RdmaPassiveEndpointGroup<RdmaEndpoint> defaults = sg.createDefaultGroup(200, 8, 1, 16);
        RdmaServerEndpoint<RdmaEndpoint> listener = defaults.createServerEndpoint().bind(at, 2);
        RdmaActiveEndpointGroup<Ep> cg = group();
        Ep client = cg.createEndpoint();
        CompletableFuture<RdmaEndpoint> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                return listener.accept();
            } catch (IOException x) {
                throw new IllegalStateException(x);
            }
        });
        client.connect(at, 5000);
        RdmaEndpoint server = accepted.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(server.isServerSide()).isTrue();
        assertThat(client.isConnected()).isTrue();

        ByteBuffer rb = ByteBuffer.allocateDirect(64);
        IbvMr rmr = server.registerMemory(rb).execute().free().getMr();
        IbvRecvWR r = new IbvRecvWR();
        r.setWr_id(5);
        r.setSg_list(list(rmr, 64));
        LinkedList<IbvRecvWR> rl = new LinkedList<>();
        rl.add(r);
        server.postRecv(rl).execute().free();

        ByteBuffer sb = ByteBuffer.allocateDirect(64);
        sb.put(0, (byte) 99);
        IbvMr smr = client.registerMemory(sb).execute().free().getMr();
        IbvSendWR s = new IbvSendWR();
        s.setWr_id(6);
        s.setOpcode(IbvSendWR.IBV_WR_SEND);
        s.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        s.setSg_list(list(smr, 10));
        LinkedList<IbvSendWR> sl = new LinkedList<>();
        sl.add(s);
        client.postSend(sl).execute().free();
        IbvWC sent = client.events.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(sent).isNotNull().extracting(IbvWC::getWr_id).isEqualTo(6L);

        IbvWC[] wcs = {new IbvWC()};
        SVCPollCq poll = server.getCqProvider().getCQ().poll(wcs, 1);
        long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (poll.execute().getPolls() == 0) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(wcs[0].getOpcode()).isEqualTo(128);
        assertThat(wcs[0].getByte_len()).isEqualTo(10);
        assertThat(rb.get(0)).isEqualTo((byte) 99);

        client.close();
        long until = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (!server.isClosed() && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(server.isClosed()).as("the server side saw DISCONNECTED").isTrue();
        cg.close();
        defaults.close();
    }

    private static LinkedList<IbvSge> list(IbvMr mr, int length) {
        IbvSge sge = new IbvSge();
        sge.setAddr(mr.getAddr());
        sge.setLength(length);
        sge.setLkey(mr.getLkey());
        LinkedList<IbvSge> l = new LinkedList<>();
        l.add(sge);
        return l;
    }
}
