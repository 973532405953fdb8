package com.ibm.disni.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two connected RC queue pairs made with DiSNI's verbs-level calls on jrdma's in-process {@code loop0} device
 * (the build's unit tests set {@code jrdma.disni.devices=loop0}): each side has its event channel, id, PD, CQ
 * (with a completion channel) and QP.
 */
final class LoopPair implements AutoCloseable {
    static final int WAIT_MS = 10_000;
    private static final AtomicInteger PORTS = new AtomicInteger(23000 + (int) (ProcessHandle.current().pid() % 997));

    final Side client = new Side();
    final Side server = new Side();
    /** The connection request as the server's channel reported it. */
    final RdmaCmEvent request;
    private final RdmaEventChannel serverChannel;
    private final RdmaCmId listener;

    /** One end. */
    static final class Side {
        RdmaEventChannel channel;
        RdmaCmId id;
        IbvContext context;
        IbvPd pd;
        IbvCompChannel compChannel;
        IbvCQ cq;
        IbvQP qp;

        void resources(int cqe) throws IOException {
            context = id.getVerbs();
            pd = context.allocPd();
            compChannel = context.createCompChannel();
            cq = context.createCQ(compChannel, cqe, 0);
            IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.cap().setMax_send_wr(32);
            attr.cap().setMax_recv_wr(32);
            attr.cap().setMax_send_sge(2);
            attr.cap().setMax_recv_sge(2);
            attr.setQp_type(IbvQP.IBV_QPT_RC);
            attr.setSend_cq(cq);
            attr.setRecv_cq(cq);
            qp = id.createQP(pd, attr);
        }
    }

    static int nextPort() {
        return PORTS.getAndIncrement();
    }

    static RdmaCmEvent expect(RdmaEventChannel ch, RdmaCmEvent.EventType type) throws IOException {
        RdmaCmEvent e = ch.getCmEvent(WAIT_MS);
        assertThat(e).as("an event within " + WAIT_MS + " ms").isNotNull();
        assertThat(e.getEvent()).as(e.toString()).isEqualTo(type.ordinal());
        e.ackEvent();
        return e;
    }

    LoopPair() throws IOException {
        this(new RdmaConnParam());
    }

    LoopPair(RdmaConnParam param) throws IOException {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", nextPort());
        serverChannel = RdmaEventChannel.createEventChannel();
        listener = serverChannel.createId(RdmaCm.RDMA_PS_TCP);
        listener.bindAddr(address);
        listener.listen(4);
        server.channel = serverChannel;

        client.channel = RdmaEventChannel.createEventChannel();
        client.id = client.channel.createId(RdmaCm.RDMA_PS_TCP);
        client.id.resolveAddr(null, address, WAIT_MS);
        expect(client.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        client.id.resolveRoute(WAIT_MS);
        expect(client.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        client.resources(64);
        client.id.connect(param);

        request = expect(serverChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST);
        server.id = request.getConnIdPriv();
        server.resources(64);
        server.id.accept(param);
        expect(serverChannel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
        expect(client.channel, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
    }

    /** Polls {@code side}'s CQ until one completion arrives (bounded by time). */
    static IbvWC pollOne(Side side) throws IOException {
        IbvWC[] wcs = {new IbvWC()};
        SVCPollCq poll = side.cq.poll(wcs, 1);
        long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (poll.execute().getPolls() == 0) {
            assertThat(System.nanoTime()).as("a completion within " + WAIT_MS + " ms").isLessThan(deadline);
            Thread.onSpinWait();
        }
        return wcs[0].clone();
    }

    @Override
    public void close() throws IOException {
        for (Side s : new Side[] {client, server}) {
            if (s.id != null && s.id.isOpen()) {
                s.id.destroyEp();
            }
        }
        if (listener.isOpen()) {
            listener.destroyId();
        }
        serverChannel.destroyEventChannel();
        client.channel.destroyEventChannel();
    }
}
