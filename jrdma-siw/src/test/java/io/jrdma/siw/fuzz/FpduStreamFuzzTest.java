package io.jrdma.siw.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jrdma.siw.wire.FpduCheck;
import io.jrdma.siw.wire.FpduHeader;
import io.jrdma.siw.wire.MpaCrc;
import io.jrdma.siw.wire.RdmapOpcode;
import io.jrdma.siw.wire.ReadRequestHeader;
import io.jrdma.siw.wire.TermLayout;
import io.jrdma.siw.wire.Terminate;
import java.lang.foreign.MemorySegment;

/**
 * An arbitrary byte stream read as FPDUs the way siw's receive machine frames it (RFC 5044 §4, RFC
 * 5041, RFC 5040): peek the ULPDU_Length, check the DDP/RDMAP header, read every field through the
 * flyweights, verify the CRC, decode TERMINATEs, then step to the next FPDU. Nothing may throw while
 * the reads stay within the bytes the checks vouched for; a refused header names its TERMINATE.
 */
class FpduStreamFuzzTest {
    private final FpduHeader h = new FpduHeader();
    private final ReadRequestHeader rr = new ReadRequestHeader();
    private final MpaCrc crc = new MpaCrc();

    @FuzzTest(maxDuration = "5s")
    void fpduStreamsAreFramedAndCheckedWithoutThrowing(byte[] data) {
        MemorySegment s = MemorySegment.ofArray(data);
        long off = 0;
        long sink = 0;
        while (off < data.length) {
            long avail = data.length - off;
            FpduCheck c = FpduHeader.check(s, off, avail);
            int peek = FpduHeader.peekFpduLength(s, off, avail);
            if (c == FpduCheck.NEED_MORE) {
                return;
            }
            assertThat(peek).as("a checked header has a length").isNotEqualTo(FpduHeader.NEED_MORE);
            if (c != FpduCheck.OK) {
                assertThat(c.termError()).as("a refused header names its TERMINATE").isNotNull();
                return;
            }
            h.wrap(s, off);
            RdmapOpcode op = RdmapOpcode.of(h.opcode());
            assertThat(op).isNotNull();
            assertThat(h.mpaLength() + FpduHeader.MPA_LENGTH_FIELD_LENGTH).isGreaterThanOrEqualTo(op.headerLength());
            assertThat(h.fpduLength()).isEqualTo(peek);
            sink += h.ctrl() + h.ddpVersion() + h.rdmapVersion() + h.payloadLength() + h.padLength()
                    + h.payloadOffset() + (op.tagged() ? h.stag() + h.taggedOffset()
                    : h.queueNumber() + h.messageSequenceNumber() + h.messageOffset() + h.invalidateStag());
            if (peek > avail) {
                return;
            }
            if (op == RdmapOpcode.RDMA_READ_REQUEST) {
                rr.wrap(s, off);
                sink += rr.sinkStag() + rr.sinkTo() + rr.readSize() + rr.sourceStag() + rr.sourceTo();
            }
            if (op == RdmapOpcode.TERMINATE) {
                assertThat(Terminate.decode(s, off, avail, TermLayout.SIW_LITTLE_ENDIAN)).isNotNull();
                assertThat(Terminate.decode(s, off, avail, TermLayout.RFC_5040)).isNotNull();
            }
            sink += crc.verify(s, off) ? 1 : 0;
            off += peek;
        }
        assertThat(sink).isNotNull();
    }
}
