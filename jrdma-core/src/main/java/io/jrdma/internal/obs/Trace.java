package io.jrdma.internal.obs;

/**
 * jrdma's JFR events, behind one-line hooks. Every event is off unless a recording enables it
 * ({@code -XX:StartFlightRecording}, {@code jcmd PID JFR.start}, a {@link jdk.jfr.Recording}); when
 * off, a hook costs one static read and a branch: each event class has one never-committed probe
 * instance whose {@code isEnabled()} reads the event's static enabled flag, so nothing is allocated.
 * When on, a hook allocates its event and commits it.
 *
 * <p>Events (all named {@code jrdma.*}, so {@code jfr print --events 'jrdma.*' x.jfr} shows them):
 * {@code CmIdState}, {@code CmEvent} (with the reject reason), {@code QpState}, {@code MrRegister},
 * {@code MrDeregister}, {@code Terminate} (iWARP: layer, type, code), {@code Retransmit} and
 * {@code RnrWait} (rxe and loop). The control-plane hooks are called by core; the data-path ones
 * (TERMINATE, retransmit, RNR wait) by the providers' engines, only on those rare paths; those three
 * record no stack trace (it would only show the engine's loop).
 */
public final class Trace {
    private static final CmIdStateEvent CM_ID_STATE = new CmIdStateEvent();
    private static final CmEventEvent CM_EVENT = new CmEventEvent();
    private static final QpStateEvent QP_STATE = new QpStateEvent();
    private static final MrEvent MR_REGISTER = new MrEvent();
    private static final MrDeregisterEvent MR_DEREGISTER = new MrDeregisterEvent();
    private static final TerminateEvent TERMINATE = new TerminateEvent();
    private static final RetransmitEvent RETRANSMIT = new RetransmitEvent();
    private static final RnrWaitEvent RNR_WAIT = new RnrWaitEvent();

    private Trace() {
    }

    /**
     * Whether {@code jrdma.CmIdState} events are recorded.
     *
     * @return true while a recording enables it
     */
    public static boolean cmIdStateEnabled() {
        return CM_ID_STATE.isEnabled();
    }

    /**
     * An rdma_cm id changed state.
     *
     * @param id the id's handle
     * @param portSpace the port space name
     * @param from the old state name
     * @param to the new state name
     */
    public static void cmIdState(int id, String portSpace, String from, String to) {
        if (!CM_ID_STATE.isEnabled()) {
            return;
        }
        CmIdStateEvent e = new CmIdStateEvent();
        e.id = id;
        e.portSpace = portSpace;
        e.from = from;
        e.to = to;
        e.commit();
    }

    /**
     * Whether {@code jrdma.CmEvent} events are recorded (the caller then builds the strings).
     *
     * @return true while a recording enables it
     */
    public static boolean cmEventEnabled() {
        return CM_EVENT.isEnabled();
    }

    /**
     * A CM event was delivered. Call only when {@link #cmEventEnabled()}.
     *
     * @param id the id's handle
     * @param event rdma_event_str of the event
     * @param status the event's status
     * @param reason the reject reason or failure text, or empty
     * @param device the id's device, or {@code null}
     * @param local the local address, or {@code null}
     * @param peer the peer address, or {@code null}
     * @param qpNum the id's QP number, or 0
     */
    public static void cmEvent(int id, String event, int status, String reason, String device, String local,
            String peer, int qpNum) {
        CmEventEvent e = new CmEventEvent();
        e.id = id;
        e.event = event;
        e.status = status;
        e.reason = reason;
        e.device = device;
        e.local = local;
        e.peer = peer;
        e.qpNum = qpNum;
        e.commit();
    }

    /**
     * A QP changed state.
     *
     * @param device the device name
     * @param qpNum the QP number
     * @param qpType the QP type name
     * @param from the old state name
     * @param to the new state name
     */
    public static void qpState(String device, int qpNum, String qpType, String from, String to) {
        if (!QP_STATE.isEnabled()) {
            return;
        }
        QpStateEvent e = new QpStateEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.qpType = qpType;
        e.from = from;
        e.to = to;
        e.commit();
    }

    /**
     * Whether {@code jrdma.MrRegister} events are recorded (the caller then formats the access flags).
     *
     * @return true while a recording enables it
     */
    public static boolean mrRegisterEnabled() {
        return MR_REGISTER.isEnabled();
    }

    /**
     * A memory region was registered. Call only when {@link #mrRegisterEnabled()}.
     *
     * @param device the device name
     * @param lkey the local key
     * @param rkey the remote key
     * @param address the region's address (iova)
     * @param length its length
     * @param access the access flags, as text
     */
    public static void mrRegister(String device, int lkey, int rkey, long address, long length, String access) {
        MrEvent e = new MrEvent();
        e.device = device;
        e.lkey = lkey;
        e.rkey = rkey;
        e.address = address;
        e.length = length;
        e.access = access;
        e.commit();
    }

    /**
     * A memory region was deregistered.
     *
     * @param device the device name
     * @param lkey the local key
     * @param rkey the remote key
     * @param length its length
     */
    public static void mrDeregister(String device, int lkey, int rkey, long length) {
        if (!MR_DEREGISTER.isEnabled()) {
            return;
        }
        MrDeregisterEvent e = new MrDeregisterEvent();
        e.device = device;
        e.lkey = lkey;
        e.rkey = rkey;
        e.length = length;
        e.commit();
    }

    /**
     * A TERMINATE went out or came in (iWARP).
     *
     * @param device the device name
     * @param qpNum the QP number
     * @param sent true if sent, false if received
     * @param layer the layer name (RDMAP, DDP, LLP)
     * @param errorType the error type
     * @param errorCode the error code
     * @param description what the error means
     */
    public static void terminate(String device, int qpNum, boolean sent, String layer, int errorType,
            int errorCode, String description) {
        if (!TERMINATE.isEnabled()) {
            return;
        }
        TerminateEvent e = new TerminateEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.direction = sent ? "sent" : "received";
        e.layer = layer;
        e.errorType = errorType;
        e.errorCode = errorCode;
        e.description = description;
        e.commit();
    }

    /**
     * A requester retransmits from {@code psn}.
     *
     * @param device the device name
     * @param qpNum the QP number
     * @param psn the first PSN sent again
     * @param reason why: a constant string ("timeout", "sequence error NAK", "no response")
     * @param retriesLeft the retries left
     */
    public static void retransmit(String device, int qpNum, int psn, String reason, int retriesLeft) {
        if (!RETRANSMIT.isEnabled()) {
            return;
        }
        RetransmitEvent e = new RetransmitEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.psn = psn;
        e.reason = reason;
        e.retriesLeft = retriesLeft;
        e.commit();
    }

    /**
     * A requester waits after an RNR NAK.
     *
     * @param device the device name
     * @param qpNum the QP number
     * @param psn the PSN that was RNR NAKed
     * @param waitNanos how long it waits
     * @param retriesLeft the RNR retries left
     */
    public static void rnrWait(String device, int qpNum, int psn, long waitNanos, int retriesLeft) {
        if (!RNR_WAIT.isEnabled()) {
            return;
        }
        RnrWaitEvent e = new RnrWaitEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.psn = psn;
        e.wait = waitNanos;
        e.retriesLeft = retriesLeft;
        e.commit();
    }
}
