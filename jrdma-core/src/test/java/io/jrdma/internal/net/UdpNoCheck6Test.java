package io.jrdma.internal.net;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * UDP_NO_CHECK6_RX on a JDK channel: an IPv6 datagram with UDP checksum 0, as Linux rxe sends RoCEv2 over
 * IPv6, is dropped by the kernel on an ordinary socket ({@code Udp6InCsumErrors} grows) and delivered
 * once the option is set. The datagram comes from a raw IPv6 socket (root), which writes the UDP header
 * itself.
 */
class UdpNoCheck6Test {
    private static final Path SNMP6 = Path.of("/proc/net/snmp6");
    private static final long WAIT_NANOS = 5_000_000_000L;

    private static long csumErrors() throws Exception {
        for (String l : Files.readAllLines(SNMP6)) {
            String[] f = l.trim().split("\\s+");
            if (f.length == 2 && f[0].equals("Udp6InCsumErrors")) {
                return Long.parseLong(f[1]);
            }
        }
        return -1;
    }

    /** A raw IPv6 socket that sends UDP datagrams to ::1 with the checksum given (FFM). */
    private static final class RawUdp6 implements AutoCloseable {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle SOCKET = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("socket"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        private static final MethodHandle SENDTO = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("sendto"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
        private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        private final int fd;
        private final Arena arena = Arena.ofConfined();

        RawUdp6() throws Throwable {
            fd = (int) SOCKET.invokeExact(10, 3, 17); // AF_INET6, SOCK_RAW, IPPROTO_UDP
        }

        boolean open() {
            return fd >= 0;
        }

        void send(int sourcePort, int destinationPort, int checksum, byte[] payload) throws Throwable {
            MemorySegment buf = arena.allocate(8 + payload.length);
            ValueLayout.OfShort be16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            buf.set(be16, 0, (short) sourcePort);
            buf.set(be16, 2, (short) destinationPort);
            buf.set(be16, 4, (short) (8 + payload.length));
            buf.set(be16, 6, (short) checksum);
            MemorySegment.copy(payload, 0, buf, ValueLayout.JAVA_BYTE, 8, payload.length);
            MemorySegment sa = arena.allocate(28);
            sa.set(ValueLayout.JAVA_SHORT, 0, (short) 10);
            sa.set(ValueLayout.JAVA_BYTE, 8 + 15, (byte) 1); // ::1
            long n = (long) SENDTO.invokeExact(fd, buf, buf.byteSize(), 0, sa, 28);
            assertThat(n).isEqualTo(buf.byteSize());
        }

        @Override
        @SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
        public void close() throws Exception {
            try {
                int rc = (int) CLOSE.invokeExact(fd);
                assertThat(rc).isZero();
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            } finally {
                arena.close();
            }
        }
    }

    /** Whether a datagram comes within {@link #WAIT_NANOS}, or the checksum-error counter grows. */
    private static String await(DatagramChannel ch, long errorsBefore) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(64);
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            if (ch.receive(b) != null) {
                return "received " + b.position();
            }
            if (csumErrors() > errorsBefore) {
                return "dropped";
            }
            Thread.onSpinWait();
        }
        return "nothing";
    }

    @Test
    void aZeroChecksumDatagramIsDroppedUntilTheSocketAcceptsThem() throws Throwable {
        assumeTrue(TcpCongestion.supported() && Files.isReadable(SNMP6), "Linux with /proc/net/snmp6");
        assumeTrue("root".equals(System.getProperty("user.name")), "a raw socket needs root");
        try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET6); RawUdp6 raw = new RawUdp6()) {
            assumeTrue(raw.open(), "no raw IPv6 socket");
            ch.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            ch.configureBlocking(false);
            int port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            byte[] hello = {'r', 'x', 'e'};
            long errors = csumErrors();
            raw.send(4791, port, 0, hello);
            assertThat(await(ch, errors)).as("an ordinary socket: the kernel drops it").isEqualTo("dropped");
            UdpNoCheck6.set(ch);
            raw.send(4791, port, 0, hello);
            assertThat(await(ch, Long.MAX_VALUE)).isEqualTo("received 3");
        }
    }

    @Test
    void anUnboundChannelIsRefused() throws Exception {
        try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET6)) {
            assertThatThrownBy(() -> UdpNoCheck6.set(ch)).isInstanceOf(IllegalStateException.class);
        }
    }
}
