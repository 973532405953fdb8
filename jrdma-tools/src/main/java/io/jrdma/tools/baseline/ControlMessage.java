package io.jrdma.tools.baseline;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.net.ProtocolException;

import io.jrdma.tools.perf.BwResult;
import io.jrdma.tools.perf.LatDurationResult;
import io.jrdma.tools.perf.LatResult;
import io.jrdma.tools.perf.PerfResult;
import io.jrdma.tools.perf.ReportUnit;

/**
 * The baselines' out-of-band control protocol, carried on its own TCP connection as perftest
 * carries its parameter exchange and syncs on a socket beside the data path. Each message is a
 * type byte and a fixed body, big-endian:
 *
 * <pre>
 *  HELLO     1 | magic "JRDB" (4) | version (2) | tool (1) | client UDP port (4)
 *  HELLO_ACK 2 | accepted (1) | reason (modified UTF-8, 2-byte length)
 *  RUN       3 | run id (4) | size (4) | iterations (8, -1 = until the client ends it) | warm-up (1)
 *  READY     4 | run id (4)
 *  DONE      5 | run id (4) | messages received (8) | bytes received (8)
 *  RESULT    6 | kind (1) | bytes (8) | iterations (8) | figures (8 each: 4 BW, 8 LAT, 5 LAT_DUR)
 *  BYE       7
 *  FAILED    8 | reason (modified UTF-8, 2-byte length)
 * </pre>
 *
 * A client says HELLO; for each size it sends RUN, moves the data (on a fresh TCP data connection,
 * or as datagrams to the server's UDP port), ends it (TCP: shuts its output down; UDP: sends end
 * markers) and waits for DONE; then it sends the RESULT row for the server to print, and BYE at the
 * end. Limits are enforced in the constructors; {@link #read} rejects anything else with a
 * {@link ProtocolException}.
 */
sealed interface ControlMessage {

    /** {@code "JRDB"}. */
    int MAGIC = 0x4A524442;

    /** The protocol version. */
    int VERSION = 1;

    /** The longest reason text. */
    int MAX_REASON = 300;

    /**
     * Writes the message (type and body); the caller flushes.
     *
     * @param out the stream
     * @throws IOException if writing fails
     */
    void write(DataOutput out) throws IOException;

    /**
     * Reads one message.
     *
     * @param in the stream
     * @return the message
     * @throws ProtocolException on an unknown type or a field outside its limits
     * @throws IOException if reading fails or the stream ends
     */
    static ControlMessage read(DataInput in) throws IOException {
        int type = in.readUnsignedByte();
        try {
            return switch (type) {
                case Hello.TYPE -> Hello.readBody(in);
                case HelloAck.TYPE -> new HelloAck(in.readBoolean(), in.readUTF());
                case Run.TYPE -> new Run(in.readInt(), in.readInt(), in.readLong(), in.readBoolean());
                case Ready.TYPE -> new Ready(in.readInt());
                case Done.TYPE -> new Done(in.readInt(), in.readLong(), in.readLong());
                case Result.TYPE -> Result.readBody(in);
                case Bye.TYPE -> new Bye();
                case Failed.TYPE -> new Failed(in.readUTF());
                default -> throw new ProtocolException("unknown control message type " + type);
            };
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("bad control message: " + e.getMessage());
        }
    }

    private static String checkReason(String reason) {
        if (reason == null || reason.length() > MAX_REASON) {
            throw new IllegalArgumentException("reason must be 0.." + MAX_REASON + " characters");
        }
        return reason;
    }

    /**
     * The client's greeting.
     *
     * @param version the protocol version
     * @param tool the baseline the client runs; the server must run the same
     * @param udpPort the client's UDP port (UDP tools), else 0
     */
    record Hello(int version, BaselineTool tool, int udpPort) implements ControlMessage {
        static final int TYPE = 1;

        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException on a missing tool or a port outside 0..65535
         */
        public Hello {
            if (tool == null || udpPort < 0 || udpPort > 0xffff) {
                throw new IllegalArgumentException("hello needs a tool and a port 0..65535");
            }
        }

        static Hello readBody(DataInput in) throws IOException {
            int magic = in.readInt();
            if (magic != MAGIC) {
                throw new ProtocolException("not a jrdma baseline peer (magic 0x" + Integer.toHexString(magic) + ")");
            }
            int version = in.readUnsignedShort();
            int tool = in.readUnsignedByte();
            BaselineTool[] tools = BaselineTool.values();
            if (tool >= tools.length) {
                throw new ProtocolException("unknown tool " + tool);
            }
            return new Hello(version, tools[tool], in.readInt());
        }

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            out.writeInt(MAGIC);
            out.writeShort(version);
            out.writeByte(tool.ordinal());
            out.writeInt(udpPort);
        }
    }

    /**
     * The server's answer to HELLO.
     *
     * @param accepted whether the server runs the same tool and version
     * @param reason why not, or empty
     */
    record HelloAck(boolean accepted, String reason) implements ControlMessage {
        static final int TYPE = 2;

        /**
         * Checks the reason.
         *
         * @throws IllegalArgumentException if the reason is missing or too long
         */
        public HelloAck {
            checkReason(reason);
        }

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            out.writeBoolean(accepted);
            out.writeUTF(reason);
        }
    }

    /**
     * Starts a run of one size.
     *
     * @param runId the run's number, distinct within a session
     * @param size the message size
     * @param iterations messages the client will send, or -1 when it ends the run itself
     * @param warmup whether the run is a warm-up whose result is discarded
     */
    record Run(int runId, int size, long iterations, boolean warmup) implements ControlMessage {
        static final int TYPE = 3;

        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException on a size below 1 or iterations below -1
         */
        public Run {
            if (size < 1 || iterations < -1) {
                throw new IllegalArgumentException("run needs size >= 1 and iterations >= -1");
            }
        }

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            out.writeInt(runId);
            out.writeInt(size);
            out.writeLong(iterations);
            out.writeBoolean(warmup);
        }
    }

    /**
     * The server is ready for the run's data.
     *
     * @param runId the run
     */
    record Ready(int runId) implements ControlMessage {
        static final int TYPE = 4;

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            out.writeInt(runId);
        }
    }

    /**
     * The server saw the end of the run.
     *
     * @param runId the run
     * @param messages messages received
     * @param bytes bytes received
     */
    record Done(int runId, long messages, long bytes) implements ControlMessage {
        static final int TYPE = 5;

        /**
         * Checks the counts.
         *
         * @throws IllegalArgumentException on a negative count
         */
        public Done {
            if (messages < 0 || bytes < 0) {
                throw new IllegalArgumentException("counts must be >= 0");
            }
        }

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            out.writeInt(runId);
            out.writeLong(messages);
            out.writeLong(bytes);
        }
    }

    /**
     * A result row for the server to print.
     *
     * @param result the row
     */
    record Result(PerfResult result) implements ControlMessage {
        static final int TYPE = 6;
        private static final int KIND_BW = 0;
        private static final int KIND_LAT = 1;
        private static final int KIND_LAT_DURATION = 2;

        /**
         * Checks the row.
         *
         * @throws IllegalArgumentException if the row is missing
         */
        public Result {
            if (result == null) {
                throw new IllegalArgumentException("result is required");
            }
        }

        static Result readBody(DataInput in) throws IOException {
            int kind = in.readUnsignedByte();
            long bytes = in.readLong();
            long iterations = in.readLong();
            return switch (kind) {
                case KIND_BW -> {
                    double peak = in.readDouble();
                    double avg = in.readDouble();
                    double rate = in.readDouble();
                    int unit = in.readUnsignedByte();
                    if (unit >= ReportUnit.values().length) {
                        throw new ProtocolException("unknown unit " + unit);
                    }
                    yield new Result(new BwResult(bytes, iterations, peak, avg, rate, ReportUnit.values()[unit]));
                }
                case KIND_LAT -> new Result(new LatResult(bytes, iterations, in.readDouble(), in.readDouble(),
                        in.readDouble(), in.readDouble(), in.readDouble(), in.readDouble(), in.readDouble(),
                        in.readDouble()));
                case KIND_LAT_DURATION -> new Result(new LatDurationResult(bytes, iterations, in.readDouble(),
                        in.readDouble(), in.readDouble(), in.readDouble(), in.readDouble()));
                default -> throw new ProtocolException("unknown result kind " + kind);
            };
        }

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            switch (result) {
                case BwResult r -> {
                    head(out, KIND_BW, r);
                    out.writeDouble(r.bwPeak());
                    out.writeDouble(r.bwAverage());
                    out.writeDouble(r.msgRateMpps());
                    out.writeByte(r.unit().ordinal());
                }
                case LatResult r -> {
                    head(out, KIND_LAT, r);
                    out.writeDouble(r.tMin());
                    out.writeDouble(r.tMax());
                    out.writeDouble(r.tTypical());
                    out.writeDouble(r.tAvg());
                    out.writeDouble(r.tStdev());
                    out.writeDouble(r.p99());
                    out.writeDouble(r.p999());
                    out.writeDouble(r.tStdevExact());
                }
                case LatDurationResult r -> {
                    head(out, KIND_LAT_DURATION, r);
                    out.writeDouble(r.tAvg());
                    out.writeDouble(r.tpsAverage());
                    out.writeDouble(r.p50());
                    out.writeDouble(r.p99());
                    out.writeDouble(r.p999());
                }
            }
        }

        private static void head(DataOutput out, int kind, PerfResult r) throws IOException {
            out.writeByte(kind);
            out.writeLong(r.bytes());
            out.writeLong(r.iterations());
        }
    }

    /** The client is done; the server prints its closing rule and exits. */
    record Bye() implements ControlMessage {
        static final int TYPE = 7;

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
        }
    }

    /**
     * The server failed the run.
     *
     * @param reason why
     */
    record Failed(String reason) implements ControlMessage {
        static final int TYPE = 8;

        /**
         * Checks the reason.
         *
         * @throws IllegalArgumentException if the reason is missing or too long
         */
        public Failed {
            checkReason(reason);
        }

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeByte(TYPE);
            out.writeUTF(reason);
        }
    }
}
