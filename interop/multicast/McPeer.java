import io.jrdma.cm.*;
import io.jrdma.verbs.*;
import java.lang.foreign.*;
import java.net.*;
import java.time.Duration;

/** mckey's counterpart on jrdma: recv|send GROUP BIND COUNT. */
public class McPeer {
    public static void main(String[] a) throws Exception {
        boolean send = a[0].equals("send");
        InetAddress group = InetAddress.getByName(a[1]);
        String bind = a[2];
        int n = Integer.parseInt(a[3]);
        try (RdmaCm cm = RdmaCm.open(); EventChannel ch = cm.createEventChannel(); Arena arena = Arena.ofShared()) {
            CmId id = ch.createId("mc", PortSpace.UDP, QpType.UD);
            id.bind(new InetSocketAddress(bind, 0));
            ProtectionDomain pd = id.verbs().allocPd();
            CompletionQueue cq = id.verbs().createCq(64);
            MemorySegment buf = arena.allocate(64 * 2048, 64);
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            QueuePair qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(32, 32)));
            for (int i = 0; i < 32 && !send; i++) {
                qp.postRecv(new RecvWr().wrId(i).sg(mr, (long) i * 2048, 2048));
            }
            id.joinMulticast(group, "ctx");
            CmEvent e = ch.getEvent(Duration.ofSeconds(10));
            System.out.println("event: " + e + " dgid=" + (e.ud() == null ? null : e.ud().ahAttr().dgid()));
            ch.ackEvent(e);
            WorkCompletion[] wc = {new WorkCompletion()};
            int done = 0;
            if (send) {
                Thread.sleep(500);
                AddressHandle ah = pd.createAh(e.ud().ahAttr());
                for (int i = 0; i < n; i++) {
                    byte[] msg = ("jrdma multicast " + i).getBytes();
                    MemorySegment.copy(msg, 0, buf, ValueLayout.JAVA_BYTE, 40 * 2048L, msg.length);
                    qp.postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                            .sg(mr, 40 * 2048L, 100).ud(ah, e.ud().qpNum(), e.ud().qkey()));
                    long dl = System.nanoTime() + 5_000_000_000L;
                    while (cq.poll(wc) == 0 && System.nanoTime() < dl) {
                        Thread.onSpinWait();
                    }
                    done++;
                    Thread.sleep(50);
                }
                System.out.println("sent " + done + " status of last " + wc[0].status());
            } else {
                long dl = System.nanoTime() + 30_000_000_000L;
                while (done < n && System.nanoTime() < dl) {
                    if (cq.poll(wc) == 1) {
                        done++;
                        int slot = (int) wc[0].wrId();
                        byte[] b = new byte[Math.min(24, Math.max(0, wc[0].byteLen() - 40))];
                        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, slot * 2048L + 40, b, 0, b.length);
                        System.out.println("recv " + wc[0].status() + " len=" + wc[0].byteLen() + " srcQp=0x"
                                + Integer.toHexString(wc[0].srcQp()) + " '" + new String(b).trim() + "'");
                        qp.postRecv(new RecvWr().wrId(slot).sg(mr, slot * 2048L, 2048));
                    }
                }
                System.out.println("received " + done + " of " + n);
            }
            id.leaveMulticast(group);
            id.destroy();
        }
    }
}
