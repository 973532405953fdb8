package io.jrdma.siw.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Shared encode/decode logic of {@link MpaRequest} and {@link MpaReply}; limits as siw_cm.c checks them. */
final class MpaCodec {
    static final int ANY = 0;
    static final int REQUEST = 1;
    static final int REPLY = 2;

    private static final byte[] REQUEST_KEY = MpaFrame.REQUEST_KEY.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = MpaFrame.REPLY_KEY.getBytes(StandardCharsets.US_ASCII);

    private MpaCodec() {
    }

    static void checkLimits(int revision, Optional<MpaV2Ctrl> v2, byte[] privateData) {
        if (revision < 0 || revision > MpaFrame.MAX_REVISION) {
            throw new IllegalArgumentException("MPA revision must be 0.." + MpaFrame.MAX_REVISION + ": " + revision);
        }
        if (v2 == null || privateData == null) {
            throw new IllegalArgumentException("v2 and privateData must not be null (use Optional.empty(),"
                    + " new byte[0])");
        }
        if (v2.isPresent() && revision != MpaFrame.REVISION_2) {
            throw new IllegalArgumentException("the MPA v2 block needs revision 2, not " + revision);
        }
        int pdLength = privateData.length + (v2.isPresent() ? MpaV2Ctrl.LENGTH : 0);
        if (pdLength > MpaFrame.MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("MPA PD_Length " + pdLength + " (" + privateData.length
                    + " bytes of private data" + (v2.isPresent() ? " + 4-byte v2 block" : "") + ") exceeds "
                    + MpaFrame.MAX_PRIVATE_DATA);
        }
    }

    static int flags(boolean markers, boolean crc, boolean reject, boolean enhanced) {
        return (markers ? MpaFrame.FLAG_MARKERS : 0) | (crc ? MpaFrame.FLAG_CRC : 0)
                | (reject ? MpaFrame.FLAG_REJECT : 0) | (enhanced ? MpaFrame.FLAG_ENHANCED : 0);
    }

    static int encode(MemorySegment segment, long offset, boolean reply, int flags, int revision,
            Optional<MpaV2Ctrl> v2, byte[] privateData) {
        MemorySegment.copy(MemorySegment.ofArray(reply ? REPLY_KEY : REQUEST_KEY), 0, segment, offset,
                MpaFrame.KEY_LENGTH);
        int pdLength = privateData.length + (v2.isPresent() ? MpaV2Ctrl.LENGTH : 0);
        segment.set(ValueLayout.JAVA_BYTE, offset + MpaFrame.FLAGS_OFFSET, (byte) flags);
        segment.set(ValueLayout.JAVA_BYTE, offset + MpaFrame.REVISION_OFFSET, (byte) revision);
        segment.set(Wire.U16, offset + MpaFrame.PD_LENGTH_OFFSET, (short) pdLength);
        long p = offset + MpaFrame.HEADER_LENGTH;
        if (v2.isPresent()) {
            v2.get().write(segment, p);
            p += MpaV2Ctrl.LENGTH;
        }
        MemorySegment.copy(MemorySegment.ofArray(privateData), 0, segment, p, privateData.length);
        return MpaFrame.HEADER_LENGTH + pdLength;
    }

    static MpaResult decode(MemorySegment segment, long offset, long available, int expect) {
        if (available < MpaFrame.HEADER_LENGTH) {
            return new MpaResult.NeedMore((int) (MpaFrame.HEADER_LENGTH - available));
        }
        int flags = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE,
                offset + MpaFrame.FLAGS_OFFSET));
        int revision = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE,
                offset + MpaFrame.REVISION_OFFSET));
        int pdLength = MpaFrame.pdLength(segment, offset);
        if (pdLength > MpaFrame.MAX_PRIVATE_DATA) {
            return invalid(MpaProblem.PD_LENGTH_OVER_LIMIT, "PD_Length " + pdLength + " > "
                    + MpaFrame.MAX_PRIVATE_DATA, null);
        }
        if (revision > MpaFrame.MAX_REVISION) {
            return invalid(MpaProblem.BAD_REVISION, "revision " + revision + " > " + MpaFrame.MAX_REVISION, null);
        }
        boolean isRequest = keyEquals(segment, offset, REQUEST_KEY);
        boolean isReply = !isRequest && keyEquals(segment, offset, REPLY_KEY);
        if (!isRequest && !isReply || expect == REQUEST && isReply || expect == REPLY && isRequest) {
            return invalid(MpaProblem.BAD_KEY, "key " + printable(segment, offset) + " where "
                    + (expect == REQUEST ? "\"" + MpaFrame.REQUEST_KEY + "\"" : expect == REPLY
                    ? "\"" + MpaFrame.REPLY_KEY + "\"" : "an MPA request or reply key") + " was expected", null);
        }
        boolean enhanced = revision == MpaFrame.REVISION_2 && (flags & MpaFrame.FLAG_ENHANCED) != 0;
        if (enhanced && pdLength < MpaV2Ctrl.LENGTH) {
            if (isReply && (flags & MpaFrame.FLAG_REJECT) != 0) {
                // siw's reject of a request that had H without room for the block echoes that H with
                // PD_Length 0 (MpaReply.refusingHeader); a reject is a reject (siw_proc_mpareply reads R
                // before the block): no block.
                enhanced = false;
            } else {
                return invalid(MpaProblem.MISSING_V2_BLOCK, "H bit set but PD_Length " + pdLength + " < "
                        + MpaV2Ctrl.LENGTH, null);
            }
        }
        long total = MpaFrame.HEADER_LENGTH + pdLength;
        if (available < total) {
            return new MpaResult.NeedMore((int) (total - available));
        }
        long p = offset + MpaFrame.HEADER_LENGTH;
        Optional<MpaV2Ctrl> v2 = Optional.empty();
        if (enhanced) {
            v2 = Optional.of(MpaV2Ctrl.read(segment, p));
            p += MpaV2Ctrl.LENGTH;
        }
        byte[] privateData = new byte[(int) (offset + total - p)];
        MemorySegment.copy(segment, p, MemorySegment.ofArray(privateData), 0, privateData.length);
        boolean markers = (flags & MpaFrame.FLAG_MARKERS) != 0;
        boolean crc = (flags & MpaFrame.FLAG_CRC) != 0;
        MpaFrame frame = isRequest
                ? new MpaRequest(revision, markers, crc, v2, privateData)
                : new MpaReply(revision, markers, crc, (flags & MpaFrame.FLAG_REJECT) != 0, v2, privateData);
        if (markers) {
            return invalid(MpaProblem.MARKERS_NOT_SUPPORTED, "M bit set: MPA markers are not supported", frame);
        }
        return new MpaResult.Decoded(frame, (int) total);
    }

    private static MpaResult invalid(MpaProblem problem, String detail, MpaFrame frame) {
        return new MpaResult.Invalid(problem, detail, Optional.ofNullable(frame));
    }

    private static boolean keyEquals(MemorySegment segment, long offset, byte[] key) {
        return MemorySegment.mismatch(segment, offset, offset + MpaFrame.KEY_LENGTH,
                MemorySegment.ofArray(key), 0, key.length) < 0;
    }

    private static String printable(MemorySegment segment, long offset) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < MpaFrame.KEY_LENGTH; i++) {
            int c = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + i));
            sb.append(c >= 0x20 && c < 0x7F ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return sb.append('"').toString();
    }
}
