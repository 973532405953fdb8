package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A requester got an RNR NAK and waits the responder's RNR timer before sending again. */
@Name("jrdma.RnrWait")
@Label("RNR Wait")
@StackTrace(false)
@Category({"jrdma", "Reliability"})
@Description("The responder had no receive posted: the requester waits, then retries (rnr_retry)")
final class RnrWaitEvent extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("QP Number")
    int qpNum;

    @Label("PSN")
    int psn;

    @Label("Wait")
    @Timespan(Timespan.NANOSECONDS)
    long wait;

    @Label("RNR Retries Left")
    @Description("7 means for ever")
    int retriesLeft;
}
