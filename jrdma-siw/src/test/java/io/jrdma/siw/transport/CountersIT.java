package io.jrdma.siw.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.SiwConfig;
import io.jrdma.verbs.Counters;
import io.jrdma.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * siw's counters over TCP on 127.0.0.1 with 1024-byte FPDUs: a 3000-byte SEND is three FPDUs
 * (1000-byte payloads) on the sender and the receiver, a READ one request FPDU and its response
 * FPDUs, completions count as rdma_sends/rdma_recvs, the MPA handshake counts two frames, and the
 * device adds up its QPs.
 */
class CountersIT {
    private final Testbed tb = new Testbed();

    @AfterEach
    void close() {
        tb.close();
    }

    private QpImpl[] pair() {
        Testbed.Connected link = tb.connected(tb.cm(SiwConfig.defaults().withMaxSegment(1024)), 4);
        return new QpImpl[] {link.active(), link.passive()};
    }

    @Test
    void fpdusAndCompletionsCountOnBothQpsAndOnTheDevice() {
        Counters before = tb.ctx.queryCounters();
        QpImpl[] p = pair();
        Testbed.Buffer src = tb.buffer(8192, Testbed.ALL);
        Testbed.Buffer dst = tb.buffer(8192, Testbed.ALL);
        Testbed.recv(p[1], 1, dst, 0, 4096);
        Testbed.post(p[0], Testbed.send(2, src, 0, 3000));
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        Testbed.post(p[0], Testbed.read(3, src, 0, 2500, dst.mr().rkey(), dst.addr(0)));
        assertThat(tb.completion().status()).isEqualTo(WcStatus.SUCCESS);
        Counters a = p[0].queryCounters();
        Counters b = p[1].queryCounters();
        assertThat(a.fpdusSent()).as("3 SEND FPDUs and 1 READ request").isEqualTo(4);
        assertThat(b.fpdusReceived()).isEqualTo(4);
        assertThat(b.fpdusSent()).as("2500 bytes of READ response in 1004-byte FPDUs").isEqualTo(3);
        assertThat(a.fpdusReceived()).isEqualTo(3);
        assertThat(a.rdmaSends()).isEqualTo(2);
        assertThat(b.rdmaRecvs()).isEqualTo(1);
        assertThat(a.crcErrors()).isZero();
        assertThat(a.values()).containsKeys("fpdus_sent", "fpdus_received", "crc_errors", "terminate_sent",
                "terminate_received").doesNotContainKey("mpa_frames_sent");
        Counters d = tb.ctx.queryCounters().minus(before);
        assertThat(d.fpdusSent()).isEqualTo(7);
        assertThat(d.fpdusReceived()).isEqualTo(7);
        assertThat(d.get("mpa_frames_sent")).as("request and reply").isEqualTo(2);
        assertThat(d.rdmaSends()).isEqualTo(2);
    }
}
