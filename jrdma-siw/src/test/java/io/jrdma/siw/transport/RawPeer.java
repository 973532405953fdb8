package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.siw.wire.FpduCheck;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.MpaFrame;
import io.jrdma.siw.wire.MpaResult;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import io.jrdma.siw.wire.TerminateResult;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.locks.LockSupport;

/**
 * A hand-written iWARP peer for the transport tests: a blocking TCP socket on 127.0.0.1 that sends and
 * reads MPA frames and FPDUs byte by byte with the wire codecs, so a test controls every field and
 * every segment boundary, and sees exactly what jrdma put on the wire. Every read is bounded by
 * {@link #TIMEOUT_MS}.
 */
public final class RawPeer implements AutoCloseable {
    /** How long a read waits before the test fails. */
    public static final int TIMEOUT_MS = 5_000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final MpaCrc mpaCrc = new MpaCrc();
    private boolean crc;
    private int sendMsn = 1;
    private int readMsn = 1;

    private RawPeer(Socket s) throws IOException {
        this.socket = s;
        s.setTcpNoDelay(true);
        s.setSoTimeout(TIMEOUT_MS);
        this.in = new DataInputStream(s.getInputStream());
        this.out = s.getOutputStream();
    }

    /** Connects to {@code address} (jrdma listens there). */
    public static RawPeer connect(InetSocketAddress address) {
        try {
            Socket s = new Socket();
            s.connect(address, TIMEOUT_MS);
            return new RawPeer(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Connects to {@code address} from {@code local} (any port). Callers that open tens of thousands of
     * connections spread them over 127/8 source addresses: each connection this side closes first leaves
     * a TIME_WAIT entry on its client port, and on a single source address those entries exhaust the
     * ephemeral ports that every other test binds from.
     */
    public static RawPeer connect(InetSocketAddress address, InetAddress local) {
        try {
            Socket s = new Socket();
            s.bind(new InetSocketAddress(local, 0));
            s.connect(address, TIMEOUT_MS);
            return new RawPeer(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Connects to {@code address} with a receive buffer of {@code receiveBuffer} bytes, set before the
     * handshake so the window stays small: jrdma's writes block as soon as the peer stops reading.
     */
    public static RawPeer connect(InetSocketAddress address, int receiveBuffer) {
        try {
            Socket s = new Socket();
            s.setReceiveBufferSize(receiveBuffer);
            s.connect(address, TIMEOUT_MS);
            return new RawPeer(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Accepts the next connection on {@code server} (jrdma connects). */
    public static RawPeer accept(ServerSocket server) {
        try {
            server.setSoTimeout(TIMEOUT_MS);
            return new RawPeer(server.accept());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A listening socket on an ephemeral port of 127.0.0.1. */
    public static ServerSocket listen() {
        try {
            ServerSocket s = new ServerSocket();
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** FPDUs from now on carry (and are checked against) a CRC32c. */
    public RawPeer crc(boolean on) {
        this.crc = on;
        return this;
    }

    /** The socket. */
    public Socket socket() {
        return socket;
    }

    // ------------------------------------------------------------------------------------------- raw I/O

    /** Writes {@code b} at once. */
    public void write(byte[] b) {
        try {
            out.write(b);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code b} in two writes cut at {@code cut}, pausing in between so jrdma reads them apart. */
    public void writeSplit(byte[] b, int cut, long pauseNanos) {
        try {
            out.write(b, 0, cut);
            out.flush();
            LockSupport.parkNanos(pauseNanos);
            out.write(b, cut, b.length - cut);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads exactly {@code n} bytes. */
    public byte[] read(int n) {
        byte[] b = new byte[n];
        try {
            in.readFully(b);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + n + " bytes from jrdma", e);
        }
        return b;
    }

    /**
     * Reads until jrdma closes: returns how it closed ({@code "FIN"} or {@code "RST"}) and fails if more
     * than {@code allowed} bytes arrive first or nothing happens within the timeout.
     */
    public String expectClose(int allowed) {
        int extra = 0;
        try {
            InputStream s = socket.getInputStream();
            while (true) {
                int c = s.read();
                if (c < 0) {
                    return "FIN";
                }
                extra++;
                assertThat(extra).as("bytes before the close").isLessThanOrEqualTo(allowed);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("jrdma did not close within " + TIMEOUT_MS + " ms", e);
        } catch (SocketException e) {
            return "RST";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Asserts that nothing arrives for {@code millis}. */
    public void expectSilence(int millis) {
        try {
            socket.setSoTimeout(millis);
            int c = socket.getInputStream().read();
            throw new AssertionError("expected silence, got " + (c < 0 ? "EOF" : "byte 0x" + Integer.toHexString(c)));
        } catch (SocketTimeoutException expected) {
            // quiet, as it should be
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                socket.setSoTimeout(TIMEOUT_MS);
            } catch (SocketException e) {
                // closed
            }
        }
    }

    // ------------------------------------------------------------------------------------------- MPA

    /** Sends an MPA request or reply. */
    public void sendMpa(MpaFrame f) {
        write(f.toBytes());
    }

    /** Reads an MPA frame and returns its exact bytes (header, then PD_Length bytes). */
    public byte[] readMpaBytes() {
        byte[] head = read(MpaFrame.HEADER_LENGTH);
        int pd = MpaFrame.pdLength(MemorySegment.ofArray(head), 0);
        byte[] all = Arrays.copyOf(head, MpaFrame.HEADER_LENGTH + pd);
        System.arraycopy(read(pd), 0, all, MpaFrame.HEADER_LENGTH, pd);
        return all;
    }

    /** Reads an MPA frame and decodes it; fails unless it is a valid request or reply. */
    public MpaFrame readMpa() {
        byte[] b = readMpaBytes();
        MpaResult r = MpaFrame.decode(MemorySegment.ofArray(b), 0, b.length);
        assertThat(r).as("MPA frame " + HexFormat.of().formatHex(b)).isInstanceOf(MpaResult.Decoded.class);
        return ((MpaResult.Decoded) r).frame();
    }

    // ------------------------------------------------------------------------------------------- FPDUs

    /**
     * One FPDU: header fields set by {@code op} and the arguments, payload, zero pad and trailer (CRC when
     * on). The MSNs of SENDs and READ requests are this peer's counters unless given.
     */
    public byte[] fpdu(RdmapOpcode op, boolean last, byte[] payload, FieldSetter fields) {
        int len = FpduHeader.fpduLength(op, payload.length);
        byte[] b = new byte[len];
        MemorySegment s = MemorySegment.ofArray(b);
        FpduHeader h = new FpduHeader().wrap(s, 0).start(op, last, payload.length);
        fields.set(h, new ReadRequestHeader().wrap(s, 0));
        System.arraycopy(payload, 0, b, op.headerLength(), payload.length);
        if (crc) {
            mpaCrc.seal(s, 0);
        }
        return b;
    }

    /** Sets the fields of an FPDU being built. */
    @FunctionalInterface
    public interface FieldSetter {
        /** Sets fields through the flyweights. */
        void set(FpduHeader h, ReadRequestHeader rr);
    }

    /** One segment of a SEND-type message at message offset {@code mo} with this peer's next MSN. */
    public byte[] sendSegment(RdmapOpcode op, int mo, byte[] payload, boolean last, int invalidateStag) {
        int msn = sendMsn;
        if (last) {
            sendMsn++;
        }
        return fpdu(op, last, payload, (h, rr) -> h.invalidateStag(invalidateStag)
                .queueNumber(RdmapOpcode.QN_SEND).messageSequenceNumber(msn).messageOffset(mo));
    }

    /** A whole SEND in one FPDU. */
    public byte[] send(byte[] payload) {
        return sendSegment(RdmapOpcode.SEND, 0, payload, true, 0);
    }

    /** One RDMA WRITE segment. */
    public byte[] write(int stag, long to, byte[] payload, boolean last) {
        return fpdu(RdmapOpcode.RDMA_WRITE, last, payload, (h, rr) -> h.stag(stag).taggedOffset(to));
    }

    /** An RDMA READ request with this peer's next MSN on queue 1. */
    public byte[] readRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        int msn = readMsn++;
        return fpdu(RdmapOpcode.RDMA_READ_REQUEST, true, new byte[0], (h, rr) -> {
            h.invalidateStag(0).queueNumber(RdmapOpcode.QN_READ_REQUEST).messageSequenceNumber(msn).messageOffset(0);
            rr.sinkStag(sinkStag).sinkTo(sinkTo).readSize(size).sourceStag(sourceStag).sourceTo(sourceTo);
        });
    }

    /** One RDMA READ response segment. */
    public byte[] readResponse(int stag, long to, byte[] payload, boolean last) {
        return fpdu(RdmapOpcode.RDMA_READ_RESPONSE, last, payload, (h, rr) -> h.stag(stag).taggedOffset(to));
    }

    /** Reads one FPDU (framed by its ULPDU_Length) and checks its header and, when on, its CRC. */
    public Fpdu readFpdu() {
        byte[] len = read(FpduHeader.MPA_LENGTH_FIELD_LENGTH);
        int total = FpduHeader.peekFpduLength(MemorySegment.ofArray(len), 0, len.length);
        byte[] b = Arrays.copyOf(len, total);
        System.arraycopy(read(total - len.length), 0, b, len.length, total - len.length);
        MemorySegment s = MemorySegment.ofArray(b);
        assertThat(FpduHeader.check(s, 0, b.length)).as("FPDU header " + HexFormat.of().formatHex(b))
                .isEqualTo(FpduCheck.OK);
        if (crc) {
            assertThat(mpaCrc.verify(s, 0)).as("CRC of " + HexFormat.of().formatHex(b)).isTrue();
        } else {
            assertThat(MpaCrc.trailer(s, b.length - FpduHeader.CRC_LENGTH)).as("zero trailer without CRC").isZero();
        }
        return new Fpdu(b);
    }

    /** Reads FPDUs until the last segment of one message (L set); returns them in order. */
    public java.util.List<Fpdu> readMessage() {
        java.util.List<Fpdu> segs = new java.util.ArrayList<>();
        Fpdu f;
        do {
            f = readFpdu();
            segs.add(f);
        } while (!f.header().last());
        return segs;
    }

    /** Reads an FPDU that must be a TERMINATE and decodes it (siw layout unless the word says otherwise). */
    public Terminate readTerminate() {
        Fpdu f = readFpdu();
        assertThat(f.opcode()).as("opcode of " + f).isEqualTo(RdmapOpcode.TERMINATE);
        TerminateResult r = Terminate.decode(MemorySegment.ofArray(f.bytes()), 0, f.bytes().length,
                TermLayout.SIW_LITTLE_ENDIAN);
        assertThat(r).as(f.toString()).isInstanceOf(TerminateResult.Decoded.class);
        TerminateResult.Decoded d = (TerminateResult.Decoded) r;
        assertThat(d.layout()).as("jrdma sends siw's control word layout").isEqualTo(TermLayout.SIW_LITTLE_ENDIAN);
        return d.terminate();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Closes with a reset (SO_LINGER 0). */
    public void reset() {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Closes the sending direction (FIN) and keeps reading. */
    public void shutdownOutput() {
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A received FPDU.
     *
     * @param bytes the whole FPDU, ULPDU_Length through the trailer
     */
    public record Fpdu(byte[] bytes) {
        /** The header flyweight over the bytes. */
        public FpduHeader header() {
            return new FpduHeader().wrap(MemorySegment.ofArray(bytes), 0);
        }

        /** The READ request part (meaningful for opcode 1). */
        public ReadRequestHeader readRequest() {
            return new ReadRequestHeader().wrap(MemorySegment.ofArray(bytes), 0);
        }

        /** The opcode. */
        public RdmapOpcode opcode() {
            return RdmapOpcode.of(header().opcode());
        }

        /** The ULP payload. */
        public byte[] payload() {
            FpduHeader h = header();
            return Arrays.copyOfRange(bytes, (int) h.payloadOffset(), (int) h.payloadOffset() + h.payloadLength());
        }

        @Override
        public String toString() {
            return "Fpdu[" + opcode() + " " + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 64))
                    + (bytes.length > 64 ? "..." : "") + " (" + bytes.length + " bytes)]";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Fpdu f && Arrays.equals(bytes, f.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}
