package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The librdmacm (rdma-core) calls of jrdma-native's connection manager, as FFM downcall handles, and the
 * byte offsets of the structs it reads and writes (LP64 layout of rdma-core's {@code rdma_cma.h}). Every
 * call captures {@code errno} (its first argument is the capture segment). The ECE calls came with rdma-core 31:
 * an older librdmacm leaves them null ({@link #eceUnavailable()}).
 *
 * <p>Loading never throws: {@link #unavailable()} says why the library cannot be used (librdmacm is a
 * package of its own, {@code librdmacm1}, so it may be missing where libibverbs is present).
 */
final class Rdmacm {
    private Rdmacm() {
    }

    /** The library's soname. */
    static final String LIBRARY = "librdmacm.so.1";

    // ---- struct rdma_event_channel: the fd first
    static final long CHANNEL_FD = 0;
    // ---- struct rdma_cm_id: verbs (ibv_context *) first
    static final long ID_VERBS = 0;
    /** id->route.addr.src_addr and dst_addr (sockaddr_storage each): rdma_get_local_addr/_peer_addr are inline. */
    static final long ID_SRC_ADDR = 32;
    static final long ID_DST_ADDR = 32 + 128;
    // ---- struct rdma_cm_event
    static final long EV_ID = 0;
    static final long EV_LISTEN_ID = 8;
    static final long EV_EVENT = 16;
    static final long EV_STATUS = 20;
    static final long EV_PARAM = 24;
    // ---- struct rdma_conn_param (24 bytes)
    static final long CP_PRIVATE_DATA = 0;
    static final long CP_PRIVATE_DATA_LEN = 8;
    static final long CP_RESPONDER_RESOURCES = 9;
    static final long CP_INITIATOR_DEPTH = 10;
    static final long CP_FLOW_CONTROL = 11;
    static final long CP_RETRY_COUNT = 12;
    static final long CP_RNR_RETRY_COUNT = 13;
    static final long CP_SRQ = 14;
    static final long CP_QP_NUM = 16;
    static final long CONN_PARAM_SIZE = 24;

    /** enum rdma_port_space: RDMA_PS_TCP (reliable connected). */
    static final int PS_TCP = 0x0106;
    /** enum rdma_port_space: RDMA_PS_UDP (unreliable datagram, resolved with SIDR). */
    static final int PS_UDP = 0x0111;

    // ---- struct rdma_ud_param, the other member of rdma_cm_event's param union (56 bytes): the private data
    // pointer and length, struct ibv_ah_attr (8-byte aligned: its GID union holds 64-bit members), QP number, Q_Key.
    static final long UD_PRIVATE_DATA = 0;
    static final long UD_PRIVATE_DATA_LEN = 8;
    static final long UD_AH_ATTR = 16;
    static final long UD_QP_NUM = 48;
    static final long UD_QKEY = 52;
    static final long UD_PARAM_SIZE = 56;
    /** rdma_set_option's level RDMA_OPTION_ID and its option names (rdma_cma.h). */
    static final int OPTION_ID = 0;
    /** uint8_t, RFC 2474. */
    static final int OPTION_ID_TOS = 0;
    /** int. */
    static final int OPTION_ID_REUSEADDR = 1;
    /** int. */
    static final int OPTION_ID_AFONLY = 2;
    /** uint8_t. */
    static final int OPTION_ID_ACK_TIMEOUT = 3;
    // ---- struct ibv_ece (verbs.h): vendor_id, options, comp_mask
    static final long ECE_VENDOR_ID = 0;
    static final long ECE_OPTIONS = 4;
    static final long ECE_SIZE = 12;
    /** The size of a struct sockaddr_storage. */
    static final long SOCKADDR_SIZE = 128;
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;

    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final String UNAVAILABLE_REASON;

    static final MethodHandle CREATE_EVENT_CHANNEL;
    static final MethodHandle DESTROY_EVENT_CHANNEL;
    static final MethodHandle CREATE_ID;
    static final MethodHandle DESTROY_ID;
    static final MethodHandle BIND_ADDR;
    static final MethodHandle RESOLVE_ADDR;
    static final MethodHandle RESOLVE_ROUTE;
    static final MethodHandle LISTEN;
    static final MethodHandle CONNECT;
    static final MethodHandle ACCEPT;
    static final MethodHandle REJECT;
    static final MethodHandle DISCONNECT;
    static final MethodHandle GET_CM_EVENT;
    static final MethodHandle ACK_CM_EVENT;
    static final MethodHandle INIT_QP_ATTR;
    static final MethodHandle ESTABLISH;
    static final MethodHandle SET_OPTION;
    static final MethodHandle SET_LOCAL_ECE;
    static final MethodHandle GET_REMOTE_ECE;
    static final MethodHandle REJECT_ECE;
    static final MethodHandle JOIN_MULTICAST;
    static final MethodHandle LEAVE_MULTICAST;

    static {
        String why = Ibv.unavailable();
        MethodHandle[] h = new MethodHandle[22];
        if (why == null) {
            try {
                SymbolLookup lib = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
                FunctionDescriptor iP = FunctionDescriptor.of(JAVA_INT, ADDRESS);
                FunctionDescriptor iPP = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
                FunctionDescriptor iPI = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
                h[0] = find(lib, "rdma_create_event_channel", FunctionDescriptor.of(ADDRESS));
                h[1] = find(lib, "rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));
                h[2] = find(lib, "rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                        JAVA_INT));
                h[3] = find(lib, "rdma_destroy_id", iP);
                h[4] = find(lib, "rdma_bind_addr", iPP);
                h[5] = find(lib, "rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                        JAVA_INT));
                h[6] = find(lib, "rdma_resolve_route", iPI);
                h[7] = find(lib, "rdma_listen", iPI);
                h[8] = find(lib, "rdma_connect", iPP);
                h[9] = find(lib, "rdma_accept", iPP);
                h[10] = find(lib, "rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
                h[11] = find(lib, "rdma_disconnect", iP);
                h[12] = find(lib, "rdma_get_cm_event", iPP);
                h[13] = find(lib, "rdma_ack_cm_event", iP);
                h[14] = find(lib, "rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
                h[15] = find(lib, "rdma_establish", iP);
                h[16] = find(lib, "rdma_set_option", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT,
                        ADDRESS, JAVA_LONG));
                h[17] = findOptional(lib, "rdma_set_local_ece", iPP);
                h[18] = findOptional(lib, "rdma_get_remote_ece", iPP);
                h[19] = findOptional(lib, "rdma_reject_ece", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
                        JAVA_BYTE));
                h[20] = find(lib, "rdma_join_multicast", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
                h[21] = find(lib, "rdma_leave_multicast", iPP);
            } catch (IllegalArgumentException e) {
                why = LIBRARY + " not found (" + e.getMessage() + "): install rdma-core's librdmacm";
            } catch (IllegalCallerException e) {
                why = "native access is not enabled: run java with --enable-native-access=io.jrdma.kernel";
            } catch (RuntimeException | LinkageError e) {
                why = LIBRARY + " is unusable: " + e;
            }
        }
        CREATE_EVENT_CHANNEL = h[0];
        DESTROY_EVENT_CHANNEL = h[1];
        CREATE_ID = h[2];
        DESTROY_ID = h[3];
        BIND_ADDR = h[4];
        RESOLVE_ADDR = h[5];
        RESOLVE_ROUTE = h[6];
        LISTEN = h[7];
        CONNECT = h[8];
        ACCEPT = h[9];
        REJECT = h[10];
        DISCONNECT = h[11];
        GET_CM_EVENT = h[12];
        ACK_CM_EVENT = h[13];
        INIT_QP_ATTR = h[14];
        ESTABLISH = h[15];
        SET_OPTION = h[16];
        SET_LOCAL_ECE = h[17];
        GET_REMOTE_ECE = h[18];
        REJECT_ECE = h[19];
        JOIN_MULTICAST = h[20];
        LEAVE_MULTICAST = h[21];
        UNAVAILABLE_REASON = why;
    }

    private static MethodHandle find(SymbolLookup lib, String name, FunctionDescriptor fd) {
        MemorySegment sym = lib.find(name).orElseThrow(() -> new IllegalStateException(LIBRARY + " has no " + name));
        return Ibv.LINKER.downcallHandle(sym, fd, ERRNO);
    }

    private static MethodHandle findOptional(SymbolLookup lib, String name, FunctionDescriptor fd) {
        return lib.find(name).map(sym -> Ibv.LINKER.downcallHandle(sym, fd, ERRNO)).orElse(null);
    }

    /** Why the ECE calls cannot be used (a librdmacm older than rdma-core 31), or {@code null} when they can. */
    static String eceUnavailable() {
        String why = unavailable();
        if (why != null) {
            return why;
        }
        return SET_LOCAL_ECE == null || GET_REMOTE_ECE == null || REJECT_ECE == null
                ? LIBRARY + " has no rdma_set_local_ece/rdma_get_remote_ece/rdma_reject_ece (rdma-core < 31)" : null;
    }

    /** Why librdmacm cannot be used, or {@code null} when it can. */
    static String unavailable() {
        return UNAVAILABLE_REASON;
    }
}
