package io.jrdma.internal.cm.ib;

import io.jrdma.spi.ibcm.CmMessage;
import io.jrdma.verbs.Gid;
import io.jrdma.internal.engine.Timer;

/**
 * An IB CM id ({@code struct cm_id_private}): one side of one connection, SIDR exchange, or a
 * listener. All fields are guarded by the owning {@link IbCm}'s lock.
 */
public final class IbCmId {
    final IbCm cm;
    volatile IbCmHandler handler;
    volatile Object context;
    IbCmState state = IbCmState.IDLE;
    int localId;
    int remoteId;
    long tid;
    long serviceId;
    Gid remoteGid;
    int remoteQpn;
    long remoteCaGuid;
    int localQpn;
    /** The message to retransmit while waiting for an answer. */
    CmMessage pending;
    long pendingTid;
    int retriesLeft;
    long timeoutMs;
    /** The retransmission timer while a message waits for its answer, the timewait timer in TIMEWAIT. */
    final Timer timer;
    /** The message last sent that a duplicate of the peer's message is answered with (REP, RTU, DREP, MRA). */
    CmMessage lastAnswer;
    long lastAnswerTid;
    int packetLifeTime;
    int maxCmRetries = IbCm.MAX_CM_RETRIES;
    boolean destroyed;

    IbCmId(IbCm cm, IbCmHandler handler, Object context) {
        this.cm = cm;
        this.handler = handler;
        this.context = context;
        this.timer = new Timer(() -> cm.timerExpired(this));
    }

    /** The IB CM the id belongs to. */
    public IbCm cm() {
        return cm;
    }

    /** The user context. */
    public Object context() {
        return context;
    }

    /** Takes over a request's id: its events go to {@code h} from now on. */
    public void setHandler(IbCmHandler h, Object ctx) {
        synchronized (cm.lock) {
            this.handler = h;
            this.context = ctx;
        }
    }

    /** The state. */
    public IbCmState state() {
        synchronized (cm.lock) {
            return state;
        }
    }

    /** The local communication id. */
    public int localId() {
        return localId;
    }

    /** The remote node's GID. */
    public Gid remoteGid() {
        return remoteGid;
    }

    @Override
    public String toString() {
        return "IbCmId[0x" + Integer.toHexString(localId) + " " + state + "]";
    }
}
