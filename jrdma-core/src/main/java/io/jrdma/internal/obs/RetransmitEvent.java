package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A requester starts sending again from an unacknowledged PSN: the local ACK timeout expired, a PSN
 * sequence error NAK arrived, or (loop) the responder was unreachable ({@code completer_retry_err}).
 */
@Name("jrdma.Retransmit")
@Label("Retransmit")
@StackTrace(false)
@Category({"jrdma", "Reliability"})
@Description("A reliable-connection requester retransmits")
final class RetransmitEvent extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("QP Number")
    int qpNum;

    @Label("PSN")
    @Description("The first PSN sent again")
    int psn;

    @Label("Reason")
    @Description("timeout, sequence error NAK, no response")
    String reason;

    @Label("Retries Left")
    @Description("Transport retries left after this one; 7 means for ever")
    int retriesLeft;
}
