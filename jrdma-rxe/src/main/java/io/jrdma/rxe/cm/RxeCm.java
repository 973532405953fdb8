package io.jrdma.rxe.cm;

import io.jrdma.internal.cm.ib.IbCm;
import io.jrdma.internal.verbs.DeviceImpl;
import io.jrdma.internal.verbs.DeviceRegistry;
import io.jrdma.rxe.net.Peer;
import io.jrdma.rxe.net.RxePort;
import io.jrdma.rxe.net.UdpPort;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Icrc;
import io.jrdma.spi.IbCmProvider;
import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Counter;
import io.jrdma.verbs.Gid;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.function.Predicate;

/**
 * The IB CM's datagram path on an rxe device: CM messages travel as MADs on QP1 (Linux's GSI QP,
 * {@code ib_mad} + {@code cm.c} over rxe) in RoCEv2 UD SEND Only packets: BTH dest QP 1, P_Key
 * 0xFFFF, AckReq, a per-port PSN counter; DETH Q_Key 0x80010000, source QP 1; the MAD
 * ({@link CmMadCodec}); the ICRC.
 *
 * <p>As rxe sends them, they leave from UDP port {@value #QP1_SOURCE_PORT} ({@code 0xC000 +
 * hash_32(1, 14)}, the create-time source port of QP1; verified in the golden captures): this path
 * binds its own send-only socket there, and falls back to the device's 4791 socket if that port is
 * taken. Received QP1 datagrams come from the engine; one that is not a CM MAD jrdma handles is
 * dropped and counted ({@code cm_malformed_mads}). TIDs are the IB CM's ({@code IbCm}).
 *
 * <p>{@link #send} may be called from any thread (the IB CM's timers and executor): it encodes on the
 * caller's thread under this object's monitor, the control plane's only lock here.
 */
public final class RxeCm implements IbCmProvider, io.jrdma.internal.cm.ib.LossyCmPath, RxePort.Gsi {
    /** rxe's source port for QP1: {@code 0xC000 + hash_32(1, 14)}. */
    public static final int QP1_SOURCE_PORT = 0xC000 + (0x61C88647 >>> 18);
    /** rxe's {@code RXE_LOCAL_CA_ACK_DELAY}. */
    public static final int LOCAL_CA_ACK_DELAY = 15;
    private static final System.Logger LOG = System.getLogger(RxeCm.class.getName());

    private final RxePort port;
    /** The device this path serves: core's IB CM is found by it. */
    private final ProviderDevice device;
    private final int packetLifeTime;
    private final DatagramChannel channel;
    private final boolean ownChannel;
    private final int sourcePort;
    private final MemorySegment buffer = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(CmMadCodec.DATAGRAM_LENGTH));
    private final Icrc icrc = new Icrc();
    private int psn;
    private volatile Receiver receiver;
    private volatile Predicate<CmMessage> drop;

    /**
     * The CM path of {@code device} on its {@code port}; QP1's datagrams arriving there come to it.
     *
     * @param port the device's port
     * @param device the device (core's IB CM of it is started when a MAD arrives first)
     * @param packetLifeTime what {@link #packetLifeTime()} reports
     * @throws IOException if no socket can be opened
     */
    public RxeCm(RxePort port, ProviderDevice device, int packetLifeTime) throws IOException {
        this.port = port;
        this.device = device;
        this.packetLifeTime = packetLifeTime;
        UdpPort udp = port.udp();
        DatagramChannel ch = UdpPort.openDf(udp.isIpv6());
        boolean own;
        try {
            ch.bind(new InetSocketAddress(port.address(), QP1_SOURCE_PORT));
            own = true;
        } catch (IOException e) {
            ch.close();
            LOG.log(System.Logger.Level.INFO, "[" + port.name() + "] QP1 source port " + QP1_SOURCE_PORT
                    + " is taken (" + e.getMessage() + "); CM MADs leave from " + udp.local());
            ch = udp.channel();
            own = false;
        }
        this.channel = ch;
        this.ownChannel = own;
        this.sourcePort = own ? QP1_SOURCE_PORT : udp.localPort();
        port.gsi(this);
    }

    @Override
    public void start(Receiver r) {
        this.receiver = r;
    }

    /**
     * Loses every outgoing message {@code filter} matches (tests: a silent peer, a lost RTU);
     * {@code null} loses nothing. The IB CM still counts them as sent: they are lost on the wire.
     *
     * @param filter what to drop, or null
     */
    @Override
    public void dropWhen(Predicate<CmMessage> filter) {
        this.drop = filter;
    }

    @Override
    public void send(Gid destination, long tid, CmMessage message) {
        Predicate<CmMessage> d = drop;
        if (d != null && d.test(message)) {
            port.counters().shared().inc(Counter.CM_DROPPED_MADS);
            return;
        }
        Peer peer = port.peer(destination);
        synchronized (this) {
            int n = CmMadCodec.encodeDatagram(new CmMad(tid, message), Bth.DEFAULT_PKEY, psn, buffer, 0);
            psn = (psn + 1) & Bth.MASK_PSN;
            port.seal(icrc, buffer, n, sourcePort, peer);
            ByteBuffer b = buffer.asByteBuffer().limit(n);
            try {
                channel.send(b, peer.address());
                port.counters().shared().inc(Counter.CM_TX_MADS);
                port.counters().shared().inc(Counter.SENT_PKTS);
            } catch (IOException e) {
                port.counters().shared().inc(Counter.SEND_ERR);
                LOG.log(System.Logger.Level.DEBUG, "[" + port.name() + "] CM MAD to " + peer + " not sent: " + e);
            }
        }
    }

    /**
     * A QP1 datagram arrived (engine holder; its ICRC was checked): decodes the MAD and hands it to
     * the IB CM, or drops and counts it.
     *
     * @param datagram the UDP payload, BTH first
     * @param length its length, ICRC included
     * @param from the sender
     */
    @Override
    public void receive(MemorySegment datagram, int length, InetSocketAddress from) {
        CmDecodeResult r = CmMadCodec.decodeDatagram(datagram, 0, length);
        if (!(r instanceof CmDecodeResult.Decoded d)) {
            port.counters().shared().inc(Counter.CM_MALFORMED_MADS);
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, "[" + port.name() + "] QP1 datagram from " + from + " dropped: "
                        + ((CmDecodeResult.Malformed) r).detail());
            }
            return;
        }
        Receiver rcv = receiver;
        if (rcv == null) {
            rcv = startCm();
            if (rcv == null) {
                port.counters().shared().inc(Counter.RCVD_DROPPED);
                return;
            }
        }
        port.counters().shared().inc(Counter.CM_RX_MADS);
        port.counters().shared().inc(Counter.RCVD_PKTS);
        rcv.receive(Gid.of(from.getAddress()), d.mad().transactionId(), d.mad().message());
    }

    /**
     * Linux runs a CM agent on every device whether or not anyone uses the CM there, so a REQ for a
     * service nobody listens on is rejected rather than ignored. Core creates a device's IB CM on
     * first use; a MAD arriving before that creates it here (control plane, once per device).
     */
    private Receiver startCm() {
        DeviceImpl di = DeviceRegistry.instance().coreDevice(device);
        if (di == null) {
            return null;
        }
        IbCm.of(di); // registers itself through start(Receiver)
        return receiver;
    }

    @Override
    public int caAckDelay() {
        return LOCAL_CA_ACK_DELAY;
    }

    @Override
    public int packetLifeTime() {
        return packetLifeTime;
    }

    /**
     * The UDP source port CM MADs leave from.
     *
     * @return the UDP source port CM MADs leave from
     */
    public int sourcePort() {
        return sourcePort;
    }

    /**
     * Whether this path has its own socket (on {@link #QP1_SOURCE_PORT}).
     *
     * @return true if this path has its own socket (on {@link #QP1_SOURCE_PORT})
     */
    public boolean hasOwnSocket() {
        return ownChannel;
    }
}
