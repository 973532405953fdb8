package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A queue pair changed state (ibv_modify_qp, or its engine moving it to ERR/SQE/RTS). */
@Name("jrdma.QpState")
@Label("QP State Change")
@Category({"jrdma", "Verbs"})
@Description("A queue pair moved between RESET, INIT, RTR, RTS, SQD, SQE and ERR")
final class QpStateEvent extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("QP Number")
    int qpNum;

    @Label("QP Type")
    String qpType;

    @Label("From")
    String from;

    @Label("To")
    String to;
}
