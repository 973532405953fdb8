package io.jrdma.internal.roce;

/**
 * The BTH opcodes of the RC, UC and UD transports (IBTA Vol 1 §9.2.1, Table 38) with what rxe's
 * opcode table says about each ({@code rxe_opcode.c rxe_opcode[]}, behaviour ported, not code): which
 * extended headers follow the BTH and at which offset, whether a payload follows, whether it is a
 * request or a response and which part of a message it is (first/middle/last/only).
 *
 * <p>Header order after the BTH, as in rxe: DETH, FETH, RETH, AETH, AtomicAckETH, AtomicETH, IETH,
 * ImmDt, then the payload; e.g. RDMA WRITE Only with Immediate has RETH at 12, ImmDt at 28 and the
 * payload at 32, and UD SEND Only with Immediate has DETH at 12, ImmDt at 20, payload at 24.
 * {@link #RC_FLUSH} and {@link #RC_ATOMIC_WRITE} (IBTA 1.5) exist in rxe since Linux 6.2; the 6.1
 * rxe of the interop rig does not send them.
 */
public enum IbOpcode {
    /** RC SEND First. */
    RC_SEND_FIRST(0x00, Flags.PAYLOAD | Flags.REQUEST | Flags.CONSUMES_RWR | Flags.SEND | Flags.START),
    /** RC SEND Middle. */
    RC_SEND_MIDDLE(0x01, Flags.PAYLOAD | Flags.REQUEST | Flags.SEND | Flags.MIDDLE),
    /** RC SEND Last. */
    RC_SEND_LAST(0x02, Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.SEND | Flags.END),
    /** RC SEND Last with Immediate. */
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.SEND
            | Flags.END),
    /** RC SEND Only. */
    RC_SEND_ONLY(0x04, Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.CONSUMES_RWR | Flags.SEND
            | Flags.START | Flags.END),
    /** RC SEND Only with Immediate. */
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES
            | Flags.CONSUMES_RWR | Flags.SEND | Flags.START | Flags.END),
    /** RC RDMA WRITE First. */
    RC_RDMA_WRITE_FIRST(0x06, Flags.RETH | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.START),
    /** RC RDMA WRITE Middle. */
    RC_RDMA_WRITE_MIDDLE(0x07, Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.MIDDLE),
    /** RC RDMA WRITE Last. */
    RC_RDMA_WRITE_LAST(0x08, Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.END),
    /** RC RDMA WRITE Last with Immediate. */
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE
            | Flags.COMPLETES | Flags.CONSUMES_RWR | Flags.END),
    /** RC RDMA WRITE Only. */
    RC_RDMA_WRITE_ONLY(0x0a, Flags.RETH | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.START | Flags.END),
    /** RC RDMA WRITE Only with Immediate. */
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0b, Flags.RETH | Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE
            | Flags.COMPLETES | Flags.CONSUMES_RWR | Flags.START | Flags.END),
    /** RC RDMA READ Request. */
    RC_RDMA_READ_REQUEST(0x0c, Flags.RETH | Flags.REQUEST | Flags.READ | Flags.START | Flags.END),
    /** RC RDMA READ Response First. */
    RC_RDMA_READ_RESPONSE_FIRST(0x0d, Flags.AETH | Flags.PAYLOAD | Flags.RESPONSE | Flags.START),
    /** RC RDMA READ Response Middle. */
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0e, Flags.PAYLOAD | Flags.RESPONSE | Flags.MIDDLE),
    /** RC RDMA READ Response Last. */
    RC_RDMA_READ_RESPONSE_LAST(0x0f, Flags.AETH | Flags.PAYLOAD | Flags.RESPONSE | Flags.END),
    /** RC RDMA READ Response Only. */
    RC_RDMA_READ_RESPONSE_ONLY(0x10, Flags.AETH | Flags.PAYLOAD | Flags.RESPONSE | Flags.START | Flags.END),
    /** RC Acknowledge. */
    RC_ACKNOWLEDGE(0x11, Flags.AETH | Flags.RESPONSE | Flags.START | Flags.END),
    /** RC ATOMIC Acknowledge. */
    RC_ATOMIC_ACKNOWLEDGE(0x12, Flags.AETH | Flags.ATOMIC_ACK_ETH | Flags.RESPONSE | Flags.START | Flags.END),
    /** RC CmpSwap. */
    RC_COMPARE_SWAP(0x13, Flags.ATOMIC_ETH | Flags.REQUEST | Flags.ATOMIC | Flags.START | Flags.END),
    /** RC FetchAdd. */
    RC_FETCH_ADD(0x14, Flags.ATOMIC_ETH | Flags.REQUEST | Flags.ATOMIC | Flags.START | Flags.END),
    /** RC SEND Last with Invalidate. */
    RC_SEND_LAST_WITH_INVALIDATE(0x16, Flags.IETH | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.SEND
            | Flags.END),
    /** RC SEND Only with Invalidate. */
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, Flags.IETH | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES
            | Flags.CONSUMES_RWR | Flags.SEND | Flags.START | Flags.END),
    /** RC FLUSH (IBTA 1.5; rxe since Linux 6.2): FETH then RETH, no payload. */
    RC_FLUSH(0x1c, Flags.FETH | Flags.RETH | Flags.REQUEST | Flags.FLUSH | Flags.START | Flags.END),
    /** RC ATOMIC WRITE (IBTA 1.5; rxe since Linux 6.2): RETH and an 8-byte payload. */
    RC_ATOMIC_WRITE(0x1d, Flags.RETH | Flags.PAYLOAD | Flags.REQUEST | Flags.ATOMIC_WRITE | Flags.START | Flags.END),

    /** UC SEND First. */
    UC_SEND_FIRST(0x20, Flags.PAYLOAD | Flags.REQUEST | Flags.CONSUMES_RWR | Flags.SEND | Flags.START),
    /** UC SEND Middle. */
    UC_SEND_MIDDLE(0x21, Flags.PAYLOAD | Flags.REQUEST | Flags.SEND | Flags.MIDDLE),
    /** UC SEND Last. */
    UC_SEND_LAST(0x22, Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.SEND | Flags.END),
    /** UC SEND Last with Immediate. */
    UC_SEND_LAST_WITH_IMMEDIATE(0x23, Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.SEND
            | Flags.END),
    /** UC SEND Only. */
    UC_SEND_ONLY(0x24, Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.CONSUMES_RWR | Flags.SEND
            | Flags.START | Flags.END),
    /** UC SEND Only with Immediate. */
    UC_SEND_ONLY_WITH_IMMEDIATE(0x25, Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES
            | Flags.CONSUMES_RWR | Flags.SEND | Flags.START | Flags.END),
    /** UC RDMA WRITE First. */
    UC_RDMA_WRITE_FIRST(0x26, Flags.RETH | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.START),
    /** UC RDMA WRITE Middle. */
    UC_RDMA_WRITE_MIDDLE(0x27, Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.MIDDLE),
    /** UC RDMA WRITE Last. */
    UC_RDMA_WRITE_LAST(0x28, Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.END),
    /** UC RDMA WRITE Last with Immediate. */
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x29, Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE
            | Flags.COMPLETES | Flags.CONSUMES_RWR | Flags.END),
    /** UC RDMA WRITE Only. */
    UC_RDMA_WRITE_ONLY(0x2a, Flags.RETH | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE | Flags.START | Flags.END),
    /** UC RDMA WRITE Only with Immediate. */
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x2b, Flags.RETH | Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.WRITE
            | Flags.COMPLETES | Flags.CONSUMES_RWR | Flags.START | Flags.END),

    /** UD SEND Only. */
    UD_SEND_ONLY(0x64, Flags.DETH | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES | Flags.CONSUMES_RWR
            | Flags.SEND | Flags.START | Flags.END),
    /** UD SEND Only with Immediate. */
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, Flags.DETH | Flags.IMMDT | Flags.PAYLOAD | Flags.REQUEST | Flags.COMPLETES
            | Flags.CONSUMES_RWR | Flags.SEND | Flags.START | Flags.END);

    /**
     * The transport an opcode belongs to: the top three bits of the opcode (IBTA Table 38). The low five
     * bits name the operation, the same in every transport: an RC opcode's {@link #code()} is that
     * operation's offset from any transport's {@link #base()}.
     */
    public enum Service {
        /** Reliable connection, opcodes 0x00-0x1F. */
        RC(0x00),
        /** Unreliable connection, opcodes 0x20-0x3F. */
        UC(0x20),
        /** Unreliable datagram, opcodes 0x60-0x7F. */
        UD(0x60);

        private final int base;

        Service(int base) {
            this.base = base;
        }

        /**
         * The transport's first opcode.
         *
         * @return 0x00, 0x20 or 0x60
         */
        public int base() {
            return base;
        }
    }

    /**
     * Bits of {@link #flags()}: the headers an opcode carries (rxe's {@code RXE_*_MASK}) and what it
     * does.
     */
    public static final class Flags {
        /** Carries a RETH. */
        public static final int RETH = 1;
        /** Carries an AETH. */
        public static final int AETH = 1 << 1;
        /** Carries an AtomicETH. */
        public static final int ATOMIC_ETH = 1 << 2;
        /** Carries an AtomicAckETH. */
        public static final int ATOMIC_ACK_ETH = 1 << 3;
        /** Carries an IETH. */
        public static final int IETH = 1 << 4;
        /** Carries a DETH. */
        public static final int DETH = 1 << 5;
        /** Carries an ImmDt. */
        public static final int IMMDT = 1 << 6;
        /** Carries a FETH (FLUSH). */
        public static final int FETH = 1 << 7;
        /** Carries a payload. */
        public static final int PAYLOAD = 1 << 8;
        /** A request (requester to responder); rxe's {@code RXE_REQ_MASK}. */
        public static final int REQUEST = 1 << 9;
        /** A response (responder to requester); rxe's {@code RXE_ACK_MASK}. */
        public static final int RESPONSE = 1 << 10;
        /** Part of a SEND. */
        public static final int SEND = 1 << 11;
        /** Part of an RDMA WRITE. */
        public static final int WRITE = 1 << 12;
        /** An RDMA READ request. */
        public static final int READ = 1 << 13;
        /** An atomic request. */
        public static final int ATOMIC = 1 << 14;
        /** A FLUSH request. */
        public static final int FLUSH = 1 << 15;
        /** An ATOMIC WRITE request. */
        public static final int ATOMIC_WRITE = 1 << 16;
        /** Consumes a receive WQE at the responder; rxe's {@code RXE_RWR_MASK}. */
        public static final int CONSUMES_RWR = 1 << 17;
        /** Completes a receive WQE at the responder; rxe's {@code RXE_COMP_MASK}. */
        public static final int COMPLETES = 1 << 18;
        /** First (or only) packet of a message; rxe's {@code RXE_START_MASK}. */
        public static final int START = 1 << 19;
        /** Middle packet of a message. */
        public static final int MIDDLE = 1 << 20;
        /** Last (or only) packet of a message; rxe's {@code RXE_END_MASK}. */
        public static final int END = 1 << 21;

        private Flags() {
        }
    }

    /** Header lengths used to place the extended headers. */
    private static final int FETH_LENGTH = 4;

    private static final IbOpcode[] BY_CODE = new IbOpcode[256];

    static {
        for (IbOpcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final int flags;
    private final int dethOffset;
    private final int fethOffset;
    private final int rethOffset;
    private final int aethOffset;
    private final int atomicAckEthOffset;
    private final int atomicEthOffset;
    private final int iethOffset;
    private final int immDtOffset;
    private final int headerLength;

    IbOpcode(int code, int flags) {
        this.code = code;
        this.flags = flags;
        int off = Bth.LENGTH;
        this.dethOffset = (flags & Flags.DETH) != 0 ? off : -1;
        off += (flags & Flags.DETH) != 0 ? Deth.LENGTH : 0;
        this.fethOffset = (flags & Flags.FETH) != 0 ? off : -1;
        off += (flags & Flags.FETH) != 0 ? FETH_LENGTH : 0;
        this.rethOffset = (flags & Flags.RETH) != 0 ? off : -1;
        off += (flags & Flags.RETH) != 0 ? Reth.LENGTH : 0;
        this.aethOffset = (flags & Flags.AETH) != 0 ? off : -1;
        off += (flags & Flags.AETH) != 0 ? Aeth.LENGTH : 0;
        this.atomicAckEthOffset = (flags & Flags.ATOMIC_ACK_ETH) != 0 ? off : -1;
        off += (flags & Flags.ATOMIC_ACK_ETH) != 0 ? AtomicAckEth.LENGTH : 0;
        this.atomicEthOffset = (flags & Flags.ATOMIC_ETH) != 0 ? off : -1;
        off += (flags & Flags.ATOMIC_ETH) != 0 ? AtomicEth.LENGTH : 0;
        this.iethOffset = (flags & Flags.IETH) != 0 ? off : -1;
        off += (flags & Flags.IETH) != 0 ? Ieth.LENGTH : 0;
        this.immDtOffset = (flags & Flags.IMMDT) != 0 ? off : -1;
        off += (flags & Flags.IMMDT) != 0 ? ImmDt.LENGTH : 0;
        this.headerLength = off;
    }

    /**
     * The opcode with a given value; no allocation, usable per packet.
     *
     * @param code the BTH opcode byte
     * @return the opcode, or {@code null} for a value that is not an RC, UC or UD opcode rxe knows
     */
    public static IbOpcode fromCode(int code) {
        return BY_CODE[code & 0xff];
    }

    /**
     * The BTH opcode byte.
     *
     * @return 0..255
     */
    public int code() {
        return code;
    }

    /**
     * The transport.
     *
     * @return RC, UC or UD
     */
    public Service service() {
        return switch (code >>> 5) {
            case 0 -> Service.RC;
            case 1 -> Service.UC;
            default -> Service.UD;
        };
    }

    /**
     * Headers and properties as {@link Flags} bits.
     *
     * @return the bit set
     */
    public int flags() {
        return flags;
    }

    /**
     * Whether all of {@code mask}'s bits are set.
     *
     * @param mask {@link Flags} bits
     * @return true if every bit is set
     */
    public boolean has(int mask) {
        return (flags & mask) == mask;
    }

    /**
     * Length of BTH plus extended headers, i.e. where the payload starts.
     *
     * @return bytes from the start of the BTH
     */
    public int headerLength() {
        return headerLength;
    }

    /**
     * Offset of the payload from the start of the BTH (equal to {@link #headerLength()}).
     *
     * @return bytes from the start of the BTH
     */
    public int payloadOffset() {
        return headerLength;
    }

    /**
     * Whether a payload follows the headers.
     *
     * @return true for SENDs, WRITEs, READ responses and ATOMIC WRITE
     */
    public boolean hasPayload() {
        return (flags & Flags.PAYLOAD) != 0;
    }

    /**
     * Offset of the DETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int dethOffset() {
        return dethOffset;
    }

    /**
     * Offset of the FETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int fethOffset() {
        return fethOffset;
    }

    /**
     * Offset of the RETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int rethOffset() {
        return rethOffset;
    }

    /**
     * Offset of the AETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int aethOffset() {
        return aethOffset;
    }

    /**
     * Offset of the AtomicAckETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int atomicAckEthOffset() {
        return atomicAckEthOffset;
    }

    /**
     * Offset of the AtomicETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int atomicEthOffset() {
        return atomicEthOffset;
    }

    /**
     * Offset of the IETH.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int iethOffset() {
        return iethOffset;
    }

    /**
     * Offset of the ImmDt.
     *
     * @return bytes from the start of the BTH, or -1 when absent
     */
    public int immDtOffset() {
        return immDtOffset;
    }

    /**
     * A request (sent by the requester).
     *
     * @return rxe's {@code RXE_REQ_MASK}
     */
    public boolean isRequest() {
        return (flags & Flags.REQUEST) != 0;
    }

    /**
     * A response (ACK, READ response, atomic ACK).
     *
     * @return rxe's {@code RXE_ACK_MASK}
     */
    public boolean isResponse() {
        return (flags & Flags.RESPONSE) != 0;
    }

    /**
     * First packet of a multi-packet message.
     *
     * @return start but not end
     */
    public boolean isFirst() {
        return (flags & (Flags.START | Flags.END)) == Flags.START;
    }

    /**
     * Middle packet of a multi-packet message.
     *
     * @return neither start nor end
     */
    public boolean isMiddle() {
        return (flags & Flags.MIDDLE) != 0;
    }

    /**
     * Last packet of a multi-packet message.
     *
     * @return end but not start
     */
    public boolean isLast() {
        return (flags & (Flags.START | Flags.END)) == Flags.END;
    }

    /**
     * The whole message in one packet.
     *
     * @return start and end
     */
    public boolean isOnly() {
        return (flags & (Flags.START | Flags.END)) == (Flags.START | Flags.END);
    }

    /**
     * Starts a message (first or only).
     *
     * @return rxe's {@code RXE_START_MASK}
     */
    public boolean isStart() {
        return (flags & Flags.START) != 0;
    }

    /**
     * Ends a message (last or only).
     *
     * @return rxe's {@code RXE_END_MASK}
     */
    public boolean isEnd() {
        return (flags & Flags.END) != 0;
    }
}
