package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The libibverbs (rdma-core) and libc calls jrdma-native makes, as FFM downcall handles, and the byte
 * offsets of the structs it reads and writes (x86-64/aarch64 LP64 layout of rdma-core's {@code verbs.h};
 * the struct sizes are checked against {@link MemoryLayout}s built from the same fields). {@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_post_srq_recv}, {@code ibv_poll_cq} and {@code ibv_req_notify_cq} are
 * inline in {@code verbs.h}: they are called through the function pointers of the context's
 * {@code ibv_context_ops}.
 *
 * <p>Loading never throws: {@link #unavailable()} says why the library cannot be used.
 */
final class Ibv {
    private Ibv() {
    }

    static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final long ERRNO_OFFSET = Linker.Option.captureStateLayout()
            .byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    static final long ERRNO_SIZE = Linker.Option.captureStateLayout().byteSize();

    /** The library's soname. */
    static final String LIBRARY = "libibverbs.so.1";

    // ---- struct ibv_device (verbs.h): _ops is two function pointers
    static final long DEVICE_NODE_TYPE = 16;
    static final long DEVICE_TRANSPORT_TYPE = 20;
    static final long DEVICE_SIZE = 24 + 64 + 64 + 256 + 256;

    // ---- struct ibv_context: device, then ibv_context_ops (32 function pointers), cmd_fd, async_fd
    static final long CTX_OPS = 8;
    static final long OPS_POLL_CQ = CTX_OPS + 11 * 8;
    static final long OPS_REQ_NOTIFY_CQ = CTX_OPS + 12 * 8;
    static final long OPS_POST_SRQ_RECV = CTX_OPS + 20 * 8;
    static final long OPS_POST_SEND = CTX_OPS + 25 * 8;
    static final long OPS_POST_RECV = CTX_OPS + 26 * 8;
    static final long CTX_ASYNC_FD = CTX_OPS + 32 * 8 + 4;
    static final long CTX_SIZE = CTX_OPS + 32 * 8 + 12;

    // ---- struct ibv_device_attr
    static final MemoryLayout DEVICE_ATTR = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, ValueLayout.JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"), JAVA_LONG.withName("sys_image_guid"), JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"), JAVA_INT.withName("vendor_id"), JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"), JAVA_INT.withName("max_qp"), JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"), JAVA_INT.withName("max_sge"), JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"), JAVA_INT.withName("max_cqe"), JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"), JAVA_INT.withName("max_qp_rd_atom"), JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"), JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"), JAVA_INT.withName("atomic_cap"), JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"), JAVA_INT.withName("max_mw"), JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"), JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"), JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"), JAVA_INT.withName("max_fmr"), JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"), JAVA_INT.withName("max_srq_wr"), JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"), ValueLayout.JAVA_BYTE.withName("local_ca_ack_delay"),
            ValueLayout.JAVA_BYTE.withName("phys_port_cnt"), MemoryLayout.paddingLayout(4));

    // ---- struct ibv_port_attr (52 bytes in rdma-core 44; newer releases append fields, so more is zeroed)
    static final long PORT_ATTR_SIZE = 64;
    static final long PORT_STATE = 0;
    static final long PORT_MAX_MTU = 4;
    static final long PORT_ACTIVE_MTU = 8;
    static final long PORT_GID_TBL_LEN = 12;
    static final long PORT_MAX_MSG_SZ = 20;
    static final long PORT_LID = 34;
    static final long PORT_ACTIVE_WIDTH = 43;
    static final long PORT_ACTIVE_SPEED = 44;
    static final long PORT_LINK_LAYER = 46;

    // ---- struct ibv_ah_attr (32 bytes: ibv_global_route 24, then dlid, sl, src_path_bits, static_rate,
    // is_global, port_num)
    static final long AH_DGID = 0;
    static final long AH_FLOW_LABEL = 16;
    static final long AH_SGID_INDEX = 20;
    static final long AH_HOP_LIMIT = 21;
    static final long AH_TRAFFIC_CLASS = 22;
    static final long AH_DLID = 24;
    static final long AH_SL = 26;
    static final long AH_IS_GLOBAL = 29;
    static final long AH_PORT_NUM = 30;
    static final long AH_ATTR_SIZE = 32;

    // ---- struct ibv_qp_cap (5 x uint32)
    static final long CAP_MAX_SEND_WR = 0;
    static final long CAP_MAX_RECV_WR = 4;
    static final long CAP_MAX_SEND_SGE = 8;
    static final long CAP_MAX_RECV_SGE = 12;
    static final long CAP_MAX_INLINE = 16;

    // ---- struct ibv_qp_attr
    static final long QPA_STATE = 0;
    static final long QPA_CUR_STATE = 4;
    static final long QPA_PATH_MTU = 8;
    static final long QPA_QKEY = 16;
    static final long QPA_RQ_PSN = 20;
    static final long QPA_SQ_PSN = 24;
    static final long QPA_DEST_QP_NUM = 28;
    static final long QPA_ACCESS = 32;
    static final long QPA_CAP = 36;
    static final long QPA_AH = 56;
    static final long QPA_PKEY_INDEX = 120;
    static final long QPA_SQD_NOTIFY = 124;
    static final long QPA_MAX_RD_ATOMIC = 126;
    static final long QPA_MAX_DEST_RD_ATOMIC = 127;
    static final long QPA_MIN_RNR_TIMER = 128;
    static final long QPA_PORT_NUM = 129;
    static final long QPA_TIMEOUT = 130;
    static final long QPA_RETRY_CNT = 131;
    static final long QPA_RNR_RETRY = 132;
    static final long QP_ATTR_SIZE = 144;

    // ---- struct ibv_qp_init_attr
    static final long QPI_SEND_CQ = 8;
    static final long QPI_RECV_CQ = 16;
    static final long QPI_SRQ = 24;
    static final long QPI_CAP = 32;
    static final long QPI_QP_TYPE = 52;
    static final long QPI_SQ_SIG_ALL = 56;
    static final long QP_INIT_ATTR_SIZE = 64;

    // ---- struct ibv_qp / ibv_cq / ibv_mr / ibv_comp_channel (the leading public fields)
    static final long QP_QP_NUM = 52;
    static final long QP_STATE = 56;
    static final long QP_SIZE = 64;
    static final long CQ_CQE = 28;
    static final long CQ_SIZE = 32;
    static final long MR_ADDR = 16;
    static final long MR_LENGTH = 24;
    static final long MR_LKEY = 36;
    static final long MR_RKEY = 40;
    static final long MR_SIZE = 48;
    static final long CHANNEL_FD = 8;
    static final long CHANNEL_SIZE = 16;

    // ---- struct ibv_srq_init_attr / ibv_srq_attr
    static final long SRQA_MAX_WR = 0;
    static final long SRQA_MAX_SGE = 4;
    static final long SRQA_LIMIT = 8;
    static final long SRQ_INIT_ATTR_SIZE = 24;

    // ---- struct ibv_sge (16), ibv_send_wr (128), ibv_recv_wr (32), ibv_wc (48)
    static final long SGE_SIZE = 16;
    static final long SWR_WR_ID = 0;
    static final long SWR_NEXT = 8;
    static final long SWR_SG_LIST = 16;
    static final long SWR_NUM_SGE = 24;
    static final long SWR_OPCODE = 28;
    static final long SWR_SEND_FLAGS = 32;
    static final long SWR_IMM = 36;
    static final long SWR_REMOTE_ADDR = 40;
    static final long SWR_RDMA_RKEY = 48;
    static final long SWR_COMPARE_ADD = 48;
    static final long SWR_SWAP = 56;
    static final long SWR_ATOMIC_RKEY = 64;
    static final long SWR_UD_AH = 40;
    static final long SWR_UD_QPN = 48;
    static final long SWR_UD_QKEY = 52;
    static final long SEND_WR_SIZE = 128;
    static final long RWR_WR_ID = 0;
    static final long RWR_NEXT = 8;
    static final long RWR_SG_LIST = 16;
    static final long RWR_NUM_SGE = 24;
    static final long RECV_WR_SIZE = 32;
    static final MemoryLayout WC = MemoryLayout.structLayout(JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"), JAVA_INT.withName("opcode"), JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"), JAVA_INT.withName("imm_data"), JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"), JAVA_INT.withName("wc_flags"), JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("slid"), ValueLayout.JAVA_BYTE.withName("sl"),
            ValueLayout.JAVA_BYTE.withName("dlid_path_bits"), MemoryLayout.paddingLayout(2));
    static final long WC_SIZE = 48;

    // ---- struct ibv_async_event: a pointer-sized union, then event_type
    static final long ASYNC_EVENT_TYPE = 8;
    static final long ASYNC_EVENT_SIZE = 16;

    // ---- ibv_qp_attr_mask bits jrdma's QpAttrMask shares (1:1), IBV_QP_* values
    static final int IBV_QP_STATE = 1;

    // ---- libc
    static final int POLLIN = 1;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 04000;
    static final int RLIMIT_MEMLOCK = 8;

    /** Why the library cannot be used, or null. */
    private static final String UNAVAILABLE_REASON;

    static final MethodHandle GET_DEVICE_LIST;
    static final MethodHandle FREE_DEVICE_LIST;
    static final MethodHandle GET_DEVICE_NAME;
    static final MethodHandle GET_DEVICE_GUID;
    static final MethodHandle OPEN_DEVICE;
    static final MethodHandle CLOSE_DEVICE;
    static final MethodHandle QUERY_DEVICE;
    static final MethodHandle QUERY_PORT;
    static final MethodHandle QUERY_GID;
    static final MethodHandle ALLOC_PD;
    static final MethodHandle DEALLOC_PD;
    static final MethodHandle REG_MR;
    static final MethodHandle DEREG_MR;
    static final MethodHandle CREATE_COMP_CHANNEL;
    static final MethodHandle DESTROY_COMP_CHANNEL;
    static final MethodHandle CREATE_CQ;
    static final MethodHandle RESIZE_CQ;
    static final MethodHandle DESTROY_CQ;
    static final MethodHandle GET_CQ_EVENT;
    static final MethodHandle ACK_CQ_EVENTS;
    static final MethodHandle CREATE_QP;
    static final MethodHandle MODIFY_QP;
    static final MethodHandle QUERY_QP;
    static final MethodHandle DESTROY_QP;
    static final MethodHandle CREATE_SRQ;
    static final MethodHandle MODIFY_SRQ;
    static final MethodHandle QUERY_SRQ;
    static final MethodHandle DESTROY_SRQ;
    static final MethodHandle CREATE_AH;
    static final MethodHandle DESTROY_AH;
    static final MethodHandle ATTACH_MCAST;
    static final MethodHandle DETACH_MCAST;
    static final MethodHandle GET_ASYNC_EVENT;
    static final MethodHandle ACK_ASYNC_EVENT;
    /** The ops-table calls: (function pointer, args...). */
    static final MethodHandle OP_POST_SEND;
    static final MethodHandle OP_POST_RECV;
    static final MethodHandle OP_POLL_CQ;
    static final MethodHandle OP_REQ_NOTIFY_CQ;
    static final MethodHandle POLL;
    static final MethodHandle FCNTL;
    static final MethodHandle GETRLIMIT;

    static {
        String why = null;
        MethodHandle[] h = new MethodHandle[34];
        try {
            if (DEVICE_ATTR.byteSize() != 232 || WC.byteSize() != WC_SIZE) {
                throw new IllegalStateException("struct layout mismatch: ibv_device_attr " + DEVICE_ATTR.byteSize()
                        + " B, ibv_wc " + WC.byteSize() + " B");
            }
            SymbolLookup lib = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            FunctionDescriptor pP = FunctionDescriptor.of(ADDRESS, ADDRESS);
            FunctionDescriptor iP = FunctionDescriptor.of(JAVA_INT, ADDRESS);
            FunctionDescriptor iPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
            h[0] = find(lib, "ibv_get_device_list", pP, true);
            h[1] = find(lib, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS), false);
            h[2] = find(lib, "ibv_get_device_name", pP, false);
            h[3] = find(lib, "ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS), false);
            h[4] = find(lib, "ibv_open_device", pP, true);
            h[5] = find(lib, "ibv_close_device", iP, false);
            h[6] = find(lib, "ibv_query_device", iPP, false);
            h[7] = find(lib, "ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, ValueLayout.JAVA_BYTE,
                    ADDRESS), false);
            h[8] = find(lib, "ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, ValueLayout.JAVA_BYTE,
                    JAVA_INT, ADDRESS), false);
            h[9] = find(lib, "ibv_alloc_pd", pP, true);
            h[10] = find(lib, "ibv_dealloc_pd", iP, false);
            h[11] = find(lib, "ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT),
                    true);
            h[12] = find(lib, "ibv_dereg_mr", iP, false);
            h[13] = find(lib, "ibv_create_comp_channel", pP, true);
            h[14] = find(lib, "ibv_destroy_comp_channel", iP, false);
            h[15] = find(lib, "ibv_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS,
                    JAVA_INT), true);
            h[16] = find(lib, "ibv_resize_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), false);
            h[17] = find(lib, "ibv_destroy_cq", iP, false);
            h[18] = find(lib, "ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
            h[19] = find(lib, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), false);
            h[20] = find(lib, "ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
            h[21] = find(lib, "ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
            h[22] = find(lib, "ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS),
                    false);
            h[23] = find(lib, "ibv_destroy_qp", iP, false);
            h[24] = find(lib, "ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
            h[25] = find(lib, "ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
            h[26] = find(lib, "ibv_query_srq", iPP, false);
            h[27] = find(lib, "ibv_destroy_srq", iP, false);
            h[28] = find(lib, "ibv_create_ah", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
            h[29] = find(lib, "ibv_destroy_ah", iP, false);
            h[30] = find(lib, "ibv_attach_mcast", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT),
                    false);
            h[31] = find(lib, "ibv_detach_mcast", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT),
                    false);
            h[32] = find(lib, "ibv_get_async_event", iPP, true);
            h[33] = find(lib, "ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS), false);
        } catch (IllegalArgumentException e) {
            why = LIBRARY + " not found (" + e.getMessage() + "): install rdma-core's libibverbs";
        } catch (IllegalCallerException e) {
            why = "native access is not enabled: run java with --enable-native-access=io.jrdma.kernel"
                    + " (ALL-UNNAMED on the class path)";
        } catch (RuntimeException | LinkageError e) {
            why = LIBRARY + " is unusable: " + e;
        }
        GET_DEVICE_LIST = h[0];
        FREE_DEVICE_LIST = h[1];
        GET_DEVICE_NAME = h[2];
        GET_DEVICE_GUID = h[3];
        OPEN_DEVICE = h[4];
        CLOSE_DEVICE = h[5];
        QUERY_DEVICE = h[6];
        QUERY_PORT = h[7];
        QUERY_GID = h[8];
        ALLOC_PD = h[9];
        DEALLOC_PD = h[10];
        REG_MR = h[11];
        DEREG_MR = h[12];
        CREATE_COMP_CHANNEL = h[13];
        DESTROY_COMP_CHANNEL = h[14];
        CREATE_CQ = h[15];
        RESIZE_CQ = h[16];
        DESTROY_CQ = h[17];
        GET_CQ_EVENT = h[18];
        ACK_CQ_EVENTS = h[19];
        CREATE_QP = h[20];
        MODIFY_QP = h[21];
        QUERY_QP = h[22];
        DESTROY_QP = h[23];
        CREATE_SRQ = h[24];
        MODIFY_SRQ = h[25];
        QUERY_SRQ = h[26];
        DESTROY_SRQ = h[27];
        CREATE_AH = h[28];
        DESTROY_AH = h[29];
        ATTACH_MCAST = h[30];
        DETACH_MCAST = h[31];
        GET_ASYNC_EVENT = h[32];
        ACK_ASYNC_EVENT = h[33];
        MethodHandle ps = null;
        MethodHandle pr = null;
        MethodHandle pc = null;
        MethodHandle rn = null;
        MethodHandle poll = null;
        MethodHandle fcntl = null;
        MethodHandle rlimit = null;
        if (why == null) {
            try {
                Linker.Option critical = Linker.Option.critical(false);
                FunctionDescriptor post = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
                ps = LINKER.downcallHandle(post, critical);
                pr = LINKER.downcallHandle(post, critical);
                pc = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), critical);
                rn = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), critical);
                SymbolLookup libc = LINKER.defaultLookup();
                poll = LINKER.downcallHandle(libc.findOrThrow("poll"), FunctionDescriptor.of(JAVA_INT, ADDRESS,
                        JAVA_LONG, JAVA_INT), ERRNO);
                fcntl = LINKER.downcallHandle(libc.findOrThrow("fcntl"), FunctionDescriptor.of(JAVA_INT, JAVA_INT,
                        JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
                rlimit = LINKER.downcallHandle(libc.findOrThrow("getrlimit"), FunctionDescriptor.of(JAVA_INT,
                        JAVA_INT, ADDRESS));
            } catch (RuntimeException e) {
                why = "libc calls unavailable: " + e;
            }
        }
        OP_POST_SEND = ps;
        OP_POST_RECV = pr;
        OP_POLL_CQ = pc;
        OP_REQ_NOTIFY_CQ = rn;
        POLL = poll;
        FCNTL = fcntl;
        GETRLIMIT = rlimit;
        if (why != null) {
            System.getLogger("io.jrdma.kernel").log(System.Logger.Level.DEBUG, "native provider unavailable: " + why);
        }
        UNAVAILABLE_REASON = why;
    }

    private static MethodHandle find(SymbolLookup lib, String name, FunctionDescriptor fd, boolean errno) {
        MemorySegment sym = lib.find(name).orElseThrow(() -> new IllegalStateException(LIBRARY + " has no " + name));
        return errno ? LINKER.downcallHandle(sym, fd, ERRNO) : LINKER.downcallHandle(sym, fd);
    }

    /** Why the library cannot be used, or {@code null} when it can. */
    static String unavailable() {
        return UNAVAILABLE_REASON;
    }

    /** The errno a call with {@link #ERRNO} capture left in {@code state}. */
    static int errno(MemorySegment state) {
        return state.get(JAVA_INT, ERRNO_OFFSET);
    }

    /** A segment of {@code size} bytes at the native address of {@code p}. */
    static MemorySegment at(MemorySegment p, long size) {
        return p.reinterpret(size);
    }

    /** The exception for a verbs call that failed with {@code errno}. */
    static RdmaException fail(String call, int errno) {
        return fail(call, errno, "");
    }

    /** As {@link #fail(String, int)}, with {@code more} (empty, or "; " and what else to know) after the errno. */
    static RdmaException fail(String call, int errno, String more) {
        Errno e = Errno.of(errno);
        return new RdmaException(e == null ? Errno.EIO : e, call + " failed: errno " + errno
                + (e == null ? "" : " (" + e.name() + ")") + more);
    }

    /** Rethrows what a downcall threw (nothing but errors of the JVM itself). */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
