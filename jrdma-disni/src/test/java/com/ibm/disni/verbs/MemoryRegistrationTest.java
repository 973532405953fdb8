package com.ibm.disni.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedList;

import com.ibm.disni.util.MemoryUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Registration by buffer, by raw address, of a mapped file beyond 4 GiB; ODP and prefetch answers. */
@Timeout(120)
class MemoryRegistrationTest {
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE
            | IbvMr.IBV_ACCESS_REMOTE_READ;
    private static final long FIVE_GIB = 5L << 30;

    @TempDir
    Path dir;
    private LoopPair pair;

    @BeforeEach
    void connect() throws IOException {
        pair = new LoopPair();
    }

    @AfterEach
    void close() throws IOException {
        pair.close();
    }

    @Test
    void aBufferIsRegisteredFromItsBaseAddressOverItsCapacity() throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(1000);
        b.position(100).limit(200);
        IbvMr mr = pair.client.pd.regMr(b, ACCESS).execute().free().getMr();
        assertThat(mr.getAddr()).isEqualTo(MemoryUtils.getAddress(b));
        assertThat(mr.getLength()).isEqualTo(1000);
        assertThat(mr.getLkey()).isEqualTo(mr.getRkey());
        assertThat(mr.isOpen()).isTrue();
        mr.deregMr().execute().free();
        assertThat(mr.isOpen()).isFalse();
        assertThatThrownBy(() -> mr.deregMr().execute()).isInstanceOf(IOException.class);
    }

    @Test
    void rawNativeMemoryIsRegisteredByAddressAndLength() throws IOException {
        MemorySegment native4k = Arena.global().allocate(4096, 64);
        IbvMr mr = pair.server.pd.regMr(native4k.address(), 4096, ACCESS).execute().free().getMr();
        assertThat(mr.getAddr()).isEqualTo(native4k.address());
        assertThat(mr.getLength()).isEqualTo(4096);
        assertThat(mr.expPrefetchMr(native4k.address() + 100, 200)).isZero();
        assertThat(mr.expPrefetchMr(native4k.address() + 4000, 200)).as("beyond the region: EINVAL").isEqualTo(22);
        assertThatThrownBy(() -> pair.server.pd.regMr(0L, 10, ACCESS)).isInstanceOf(IOException.class)
                .hasMessageContaining("EINVAL");
    }

    @Test
    void aRegionBeyondFourGibOfAMappedFileTakesAnRdmaWriteAtOffsetsAboveFourGib() throws IOException {
        Path file = dir.resolve("sparse.bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.SPARSE); Arena arena = Arena.ofShared()) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, FIVE_GIB, arena);
            IbvMr big = pair.server.pd.regMr(mapped.address(), FIVE_GIB, ACCESS).execute().free().getMr();
            assertThat(big.getLengthLong()).isEqualTo(FIVE_GIB);
            assertThat(big.getLength()).as("the int length saturates").isEqualTo(Integer.MAX_VALUE);

            ByteBuffer src = ByteBuffer.allocateDirect(64);
            for (int i = 0; i < 64; i++) {
                src.put(i, (byte) (i + 1));
            }
            IbvMr srcMr = pair.client.pd.regMr(src, ACCESS).execute().free().getMr();
            long offset = (4L << 30) + 12345;
            IbvSge sge = new IbvSge();
            sge.setAddr(srcMr.getAddr());
            sge.setLength(64);
            sge.setLkey(srcMr.getLkey());
            LinkedList<IbvSge> sges = new LinkedList<>();
            sges.add(sge);
            IbvSendWR w = new IbvSendWR();
            w.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
            w.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            w.setSg_list(sges);
            w.getRdma().setRemote_addr(big.getAddr() + offset);
            w.getRdma().setRkey(big.getRkey());
            LinkedList<IbvSendWR> wl = new LinkedList<>();
            wl.add(w);
            pair.client.qp.postSend(wl, null).execute().free();
            assertThat(LoopPair.pollOne(pair.client).getStatus()).isZero();
            for (int i = 0; i < 64; i++) {
                assertThat(mapped.get(ValueLayout.JAVA_BYTE, offset + i)).isEqualTo((byte) (i + 1));
            }
            assertThat(big.expPrefetchMr(big.getAddr() + offset, 4096)).isZero();
            big.deregMr().execute().free();
        }
    }

    @Test
    void everyOperationSupportsOnDemandPagingAndAtomicsWhereTheDeviceHasThem() throws IOException {
        int odp = pair.client.context.queryOdpSupport();
        assertThat(odp & 0xF).isEqualTo(IbvContext.IBV_ODP_SUPPORT_SEND | IbvContext.IBV_ODP_SUPPORT_RECV
                | IbvContext.IBV_ODP_SUPPORT_WRITE | IbvContext.IBV_ODP_SUPPORT_READ);
        assertThat(odp & IbvContext.IBV_ODP_SUPPORT_ATOMIC).as("loop0 has atomics").isNotZero();
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        IbvMr mr = pair.client.pd.regMr(b, ACCESS | IbvMr.IBV_ACCESS_ON_DEMAND).execute().free().getMr();
        assertThat(mr.getLength()).isEqualTo(64);
    }
}
