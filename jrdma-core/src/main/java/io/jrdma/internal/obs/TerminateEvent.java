package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** An iWARP TERMINATE message was sent or received (RFC 5040 §5.4, siw_send_terminate). */
@Name("jrdma.Terminate")
@Label("TERMINATE")
@StackTrace(false)
@Category({"jrdma", "iWARP"})
@Description("A TERMINATE sent or received, with the layer, error type and error code of RFC 5040 §8")
final class TerminateEvent extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("QP Number")
    int qpNum;

    @Label("Direction")
    @Description("sent or received")
    String direction;

    @Label("Layer")
    @Description("RDMAP, DDP or LLP (MPA)")
    String layer;

    @Label("Error Type")
    int errorType;

    @Label("Error Code")
    int errorCode;

    @Label("Description")
    String description;
}
