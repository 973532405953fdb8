package io.jrdma.disni.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedList;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One signaled 64-byte RDMA WRITE posted and polled to its completion on loop0, the in-process device (no wire, so
 * the API's own cost is what differs): {@code jrdma} posts a reused {@link SendWr} and polls reused
 * {@link WorkCompletion}s with jrdma's API; {@code disni} edits the SGE length and wr_id of a prepared
 * {@link SVCPostSend} and executes it, then executes a prepared {@link SVCPollCq}. Both measured in one run;
 * expect 0 B/op for both with {@code -prof gc}. Run it from the module:
 * {@code java -cp target/test-classes:target/classes:DEPS -Djrdma.disni.devices=loop0 org.openjdk.jmh.Main
 * SvcPostSendBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Djrdma.disni.devices=loop0", "--enable-native-access=ALL-UNNAMED"})
public class SvcPostSendBenchmark {
    private static final int LENGTH = 64;
    private static final int WAIT_MS = 10_000;

    // jrdma's own API
    private io.jrdma.cm.RdmaCm cm;
    private EventChannel jch;
    private CmId jClient;
    private CmId jServer;
    private CmId jListen;
    private QueuePair jqp;
    private CompletionQueue jcq;
    private SendWr wr;
    private final WorkCompletion[] jwc = {new WorkCompletion()};
    private long counter;

    // DiSNI's API over jrdma
    private SVCPostSend post;
    private SVCPollCq poll;
    private SVCPostSend.SendWRMod mod;
    private SVCPostSend.SgeMod sgeMod;

    /** Two connected pairs on loop0: one through jrdma's API, one through DiSNI's. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        setUpJrdma();
        setUpDisni();
    }

    private void setUpJrdma() throws Exception {
        cm = io.jrdma.cm.RdmaCm.open("loop0");
        jch = cm.createEventChannel();
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", 27001);
        jListen = jch.createId(null, PortSpace.TCP);
        jListen.bind(at);
        jListen.listen(2);
        jClient = jch.createId(null, PortSpace.TCP);
        jClient.resolveAddr(null, at, java.time.Duration.ofSeconds(5));
        next(io.jrdma.cm.CmEventType.ADDR_RESOLVED);
        jClient.resolveRoute(java.time.Duration.ofSeconds(5));
        next(io.jrdma.cm.CmEventType.ROUTE_RESOLVED);
        ProtectionDomain pd = jClient.verbs().allocPd();
        jcq = jClient.verbs().createCq(256);
        jqp = jClient.createQp(pd, QpInitAttr.rc(jcq, new QpCap(64, 64, 1, 1, 0)));
        jClient.connect(ConnParam.defaults());
        jServer = next(io.jrdma.cm.CmEventType.CONNECT_REQUEST).id();
        ProtectionDomain spd = jServer.verbs().allocPd();
        CompletionQueue scq = jServer.verbs().createCq(256);
        jServer.createQp(spd, QpInitAttr.rc(scq, new QpCap(64, 64, 1, 1, 0)));
        MemoryRegion remote = spd.registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE
                | Access.REMOTE_WRITE);
        jServer.accept(ConnParam.defaults());
        next(io.jrdma.cm.CmEventType.ESTABLISHED);
        next(io.jrdma.cm.CmEventType.ESTABLISHED);
        MemoryRegion local = pd.registerMemory(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
        wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sg(local, 0, LENGTH)
                .rdma(remote.address(), remote.rkey());
    }

    private io.jrdma.cm.CmEvent next(io.jrdma.cm.CmEventType type) throws InterruptedException {
        io.jrdma.cm.CmEvent e = jch.getEvent(java.time.Duration.ofMillis(WAIT_MS));
        if (e == null || e.type() != type) {
            throw new IllegalStateException("expected " + type + ", got " + e);
        }
        jch.ackEvent(e);
        return e;
    }

    private static RdmaCmEvent expect(RdmaEventChannel ch, RdmaCmEvent.EventType type) throws IOException {
        RdmaCmEvent e = ch.getCmEvent(WAIT_MS);
        if (e == null || e.getEvent() != type.ordinal()) {
            throw new IllegalStateException("expected " + type + ", got " + e);
        }
        e.ackEvent();
        return e;
    }

    private static IbvQP qp(RdmaCmId id, IbvPd pd, IbvCQ cq) throws IOException {
        IbvQPInitAttr a = new IbvQPInitAttr();
        a.cap().setMax_send_wr(64);
        a.cap().setMax_recv_wr(64);
        a.cap().setMax_send_sge(1);
        a.cap().setMax_recv_sge(1);
        a.setSend_cq(cq);
        a.setRecv_cq(cq);
        return id.createQP(pd, a);
    }

    private void setUpDisni() throws Exception {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", 27002);
        RdmaEventChannel ch = RdmaEventChannel.createEventChannel();
        RdmaCmId listen = ch.createId(RdmaCm.RDMA_PS_TCP);
        listen.bindAddr(at);
        listen.listen(2);
        RdmaCmId client = ch.createId(RdmaCm.RDMA_PS_TCP);
        client.resolveAddr(null, at, WAIT_MS);
        expect(ch, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
        client.resolveRoute(WAIT_MS);
        expect(ch, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
        IbvPd pd = client.getVerbs().allocPd();
        IbvCQ cq = client.getVerbs().createCQ(null, 256, 0);
        qp(client, pd, cq);
        client.connect(new RdmaConnParam());
        RdmaCmId server = expect(ch, RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST).getConnIdPriv();
        IbvPd spd = server.getVerbs().allocPd();
        qp(server, spd, server.getVerbs().createCQ(null, 256, 0));
        int access = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE;
        IbvMr remote = spd.regMr(ByteBuffer.allocateDirect(4096), access).execute().free().getMr();
        server.accept(new RdmaConnParam());
        expect(ch, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
        expect(ch, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED);
        IbvMr local = pd.regMr(ByteBuffer.allocateDirect(4096), access).execute().free().getMr();
        IbvSge sge = new IbvSge();
        sge.setAddr(local.getAddr());
        sge.setLength(LENGTH);
        sge.setLkey(local.getLkey());
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR w = new IbvSendWR();
        w.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
        w.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        w.setSg_list(sges);
        w.getRdma().setRemote_addr(remote.getAddr());
        w.getRdma().setRkey(remote.getRkey());
        LinkedList<IbvSendWR> list = new LinkedList<>();
        list.add(w);
        post = client.getQp().postSend(list, null);
        mod = post.getWrMod(0);
        sgeMod = mod.getSgeMod(0);
        poll = cq.poll(new IbvWC[] {new IbvWC()}, 1);
    }

    /** Closes jrdma's connection manager (DiSNI's is process-wide and ends with the JVM). */
    @TearDown(Level.Trial)
    public void tearDown() {
        cm.close();
    }

    /**
     * jrdma's API: set the id and length on the reused request, post it, poll until its completion.
     *
     * @return the completion's id
     */
    @Benchmark
    public long jrdma() {
        wr.wrId(++counter);
        wr.sge(0).length(LENGTH - (int) (counter & 7));
        jqp.postSend(wr);
        while (jcq.poll(jwc, 0, 1) == 0) {
            Thread.onSpinWait();
        }
        return jwc[0].wrId();
    }

    /**
     * DiSNI's API: edit the prepared call through its modifiers, execute it, execute the prepared poll until the
     * completion.
     *
     * @return the number of completions of the last poll
     * @throws IOException never in a correct run
     */
    @Benchmark
    public int disni() throws IOException {
        mod.setWr_id(++counter);
        sgeMod.setLength(LENGTH - (int) (counter & 7));
        post.execute();
        int n;
        while ((n = poll.execute().getPolls()) == 0) {
            Thread.onSpinWait();
        }
        return n;
    }
}
