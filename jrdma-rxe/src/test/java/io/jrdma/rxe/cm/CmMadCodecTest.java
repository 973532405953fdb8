package io.jrdma.rxe.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.rxe.golden.GoldenFrame;
import io.jrdma.rxe.testing.Tries;
import io.jrdma.internal.roce.BigEndian;
import io.jrdma.internal.roce.Bth;
import io.jrdma.internal.roce.Deth;
import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.spi.ibcm.Octets;
import io.jrdma.spi.ibcm.Rtu;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** CmMadCodec on synthetic input: round trips and every way a MAD or QP1 datagram can be malformed. */
class CmMadCodecTest {

    @Test
    void everyMessageRoundTripsThroughAMad() {
        Tries.run("everyMessageRoundTripsThroughAMad", 500, g -> {
            CmMessage m = CmMessages.any(g);
            long tid = g.anyLong();
            byte[] mad = CmMadCodec.encode(new CmMad(tid, m));
            CmDecodeResult r = CmMadCodec.decode(MemorySegment.ofArray(mad), 0, mad.length);
            assertThat(r).isEqualTo(new CmDecodeResult.Decoded(new CmMad(tid, CmMessages.padded(m))));
            assertThat(mad[CmMadCodec.BASE_VERSION_OFFSET]).isEqualTo((byte) 1);
            assertThat(mad[CmMadCodec.MGMT_CLASS_OFFSET]).isEqualTo((byte) 0x07);
            assertThat(mad[CmMadCodec.CLASS_VERSION_OFFSET]).isEqualTo((byte) 2);
            assertThat(mad[CmMadCodec.METHOD_OFFSET]).isEqualTo((byte) 3);
        });
    }

    @Test
    void everyMessageRoundTripsThroughAQp1Datagram() {
        Tries.run("everyMessageRoundTripsThroughAQp1Datagram", 200, g -> {
            CmMessage m = CmMessages.any(g);
            long tid = g.anyLong();
            int psn = g.intBetween(0, 0xffffff);
            MemorySegment d = MemorySegment.ofArray(new byte[CmMadCodec.DATAGRAM_LENGTH + 10]);
            int n = CmMadCodec.encodeDatagram(new CmMad(tid, m), 0xffff, psn, d, 10);
            Bth bth = new Bth().wrap(d, 10);
            assertThat(bth.opcode()).isEqualTo(0x64);
            assertThat(bth.destQpn()).isEqualTo(1);
            assertThat(bth.psn()).isEqualTo(psn);
            assertThat(bth.ackReq()).isTrue();
            assertThat(new Deth().wrap(d, 10 + Bth.LENGTH).srcQpn()).isEqualTo(1);
            assertThat(CmMadCodec.decodeDatagram(d, 10, n))
                    .isEqualTo(new CmDecodeResult.Decoded(new CmMad(tid, CmMessages.padded(m))));
        });
    }

    @Test
    void arbitraryBytesNeverThrow() {
        Tries.run("arbitraryBytesNeverThrow", 2000, g -> {
            byte[] bytes = g.bytes(0, 300);
            boolean cmHeader = g.bool();
            if (cmHeader && bytes.length >= 4) {
                bytes[0] = 1;
                bytes[1] = 7;
                bytes[2] = 2;
                bytes[3] = 3;
            }
            MemorySegment s = MemorySegment.ofArray(bytes);
            assertThat(CmMadCodec.decode(s, 0, bytes.length)).isNotNull();
            assertThat(CmMadCodec.decodeDatagram(s, 0, bytes.length)).isNotNull();
        });
    }

    @Test
    void everyCmAttributeWithRandomDataDecodesOrIsRejectedCleanly() {
        Tries.run("everyCmAttributeWithRandomDataDecodesOrIsRejectedCleanly", 1000, g -> {
            byte[] mad = g.bytes(256);
            int attr = g.intBetween(0x10, 0x1a);
            mad[0] = 1;
            mad[1] = 7;
            mad[2] = 2;
            mad[3] = 3;
            mad[16] = 0;
            mad[17] = (byte) attr;
            CmDecodeResult r = CmMadCodec.decode(MemorySegment.ofArray(mad), 0, 256);
            if (r instanceof CmDecodeResult.Decoded d) {
                assertThat(d.mad().message().attributeId()).isEqualTo(attr);
            } else {
                assertThat(((CmDecodeResult.Malformed) r).error()).isIn(CmDecodeResult.Error.BAD_FIELD,
                        CmDecodeResult.Error.UNKNOWN_ATTRIBUTE);
            }
        });
    }

    private static byte[] rtuMad() {
        return CmMadCodec.encode(new CmMad(7, new Rtu(1, 2, Octets.empty())));
    }

    private static CmDecodeResult.Error errorOf(byte[] mad, int length) {
        CmDecodeResult r = CmMadCodec.decode(MemorySegment.ofArray(mad), 0, length);
        assertThat(r).isInstanceOf(CmDecodeResult.Malformed.class);
        return ((CmDecodeResult.Malformed) r).error();
    }

    @Test
    void aShortMadIsTruncatedNotAnException() {
        assertThat(errorOf(rtuMad(), 255)).isEqualTo(CmDecodeResult.Error.TRUNCATED);
        assertThat(errorOf(new byte[10], 256)).isEqualTo(CmDecodeResult.Error.TRUNCATED);
    }

    @Test
    void headerFieldsOtherThanACmSendAreRejected() {
        byte[] m = rtuMad();
        m[0] = 2;
        assertThat(errorOf(m, 256)).isEqualTo(CmDecodeResult.Error.BAD_BASE_VERSION);
        m = rtuMad();
        m[1] = 0x03;
        assertThat(errorOf(m, 256)).isEqualTo(CmDecodeResult.Error.NOT_CM_CLASS);
        m = rtuMad();
        m[2] = 1;
        assertThat(errorOf(m, 256)).isEqualTo(CmDecodeResult.Error.BAD_CLASS_VERSION);
        m = rtuMad();
        m[3] = 0x01;
        assertThat(errorOf(m, 256)).isEqualTo(CmDecodeResult.Error.BAD_METHOD);
    }

    @Test
    void lapAprAndUnknownAttributesAreReportedNotDecoded() {
        for (int attr : new int[] {0x0019, 0x001a, 0x0000, 0x0020, 0xffff}) {
            byte[] m = rtuMad();
            m[16] = (byte) (attr >> 8);
            m[17] = (byte) attr;
            assertThat(errorOf(m, 256)).as("attr 0x%04x", attr).isEqualTo(CmDecodeResult.Error.UNKNOWN_ATTRIBUTE);
        }
    }

    @Test
    void lengthFieldsBeyondTheirAreaAreBadFields() {
        GoldenFrame rej = GoldenFrame.named("cm-rej-timeout");
        byte[] mad = rej.payload().asSlice(CmMadCodec.DATAGRAM_MAD_OFFSET, 256).toArray(ValueLayout.JAVA_BYTE);
        mad[CmMadCodec.CM_DATA_OFFSET + 9] = (byte) (73 << 1);
        assertThat(errorOf(mad, 256)).isEqualTo(CmDecodeResult.Error.BAD_FIELD);
        GoldenFrame sidr = GoldenFrame.named("cm-sidr-rep");
        mad = sidr.payload().asSlice(CmMadCodec.DATAGRAM_MAD_OFFSET, 256).toArray(ValueLayout.JAVA_BYTE);
        mad[CmMadCodec.CM_DATA_OFFSET + 5] = 73;
        assertThat(errorOf(mad, 256)).isEqualTo(CmDecodeResult.Error.BAD_FIELD);
    }

    private static CmDecodeResult.Error datagramError(MemorySegment d, long length) {
        CmDecodeResult r = CmMadCodec.decodeDatagram(d, 0, length);
        assertThat(r).isInstanceOf(CmDecodeResult.Malformed.class);
        return ((CmDecodeResult.Malformed) r).error();
    }

    @Test
    void datagramsNotForQp1OrWithTheWrongQkeyAreRejected() {
        GoldenFrame f = GoldenFrame.named("cm-rtu");
        MemorySegment d = f.payload();
        new Bth().wrap(d, 0).destQpn(2);
        assertThat(datagramError(d, f.payloadLength())).isEqualTo(CmDecodeResult.Error.NOT_QP1);
        d = f.payload();
        new Bth().wrap(d, 0).opcode(0x65);
        assertThat(datagramError(d, f.payloadLength())).isEqualTo(CmDecodeResult.Error.BAD_OPCODE);
        d = f.payload();
        new Deth().wrap(d, Bth.LENGTH).qkey(0x01234567);
        assertThat(datagramError(d, f.payloadLength())).isEqualTo(CmDecodeResult.Error.BAD_QKEY);
        assertThat(datagramError(f.payload(), 279)).isEqualTo(CmDecodeResult.Error.TRUNCATED);
        MemorySegment longer = MemorySegment.ofArray(new byte[284]);
        MemorySegment.copy(f.payload(), 0, longer, 0, 280);
        assertThat(datagramError(longer, 284)).isEqualTo(CmDecodeResult.Error.BAD_LENGTH);
    }

    @Test
    void aLengthLargerThanTheBufferIsTruncatedNotAnException() {
        GoldenFrame f = GoldenFrame.named("cm-rtu");
        assertThat(datagramError(f.payload(), 4096)).isEqualTo(CmDecodeResult.Error.TRUNCATED);
        assertThat(CmMadCodec.decode(f.payload(), 100, 256)).isInstanceOf(CmDecodeResult.Malformed.class);
    }

    @Test
    void reservedBitsAreIgnoredOnDecodeAndZeroOnEncode() {
        GoldenFrame f = GoldenFrame.named("cm-req-rping-client");
        MemorySegment d = f.payload();
        long data = CmMadCodec.DATAGRAM_MAD_OFFSET + CmMadCodec.CM_DATA_OFFSET;
        BigEndian.putU8(d, data + 4, 0xff);                                  // REQ byte 4, reserved
        BigEndian.putU8(d, data + 94, BigEndian.u8(d, data + 94) | 0x07);    // after SL/subnet local
        CmMad mad = ((CmDecodeResult.Decoded) CmMadCodec.decodeDatagram(d, 0, 280)).mad();
        assertThat(mad).isEqualTo(((CmDecodeResult.Decoded) CmMadCodec.decodeDatagram(f.payload(), 0, 280)).mad());
        byte[] again = CmMadCodec.encode(mad);
        assertThat(again[CmMadCodec.CM_DATA_OFFSET + 4]).isZero();
    }
}
