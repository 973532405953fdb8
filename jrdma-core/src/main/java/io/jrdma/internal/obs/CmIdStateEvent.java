package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** An rdma_cm id changed state ({@code enum rdma_cm_state}, cma_priv.h). */
@Name("jrdma.CmIdState")
@Label("CM Id State Change")
@Category({"jrdma", "Connection Manager"})
@Description("An rdma_cm id moved from one state to another")
final class CmIdStateEvent extends jdk.jfr.Event {
    @Label("Id")
    @Description("The id's handle, as in the log prefix [cm N]")
    int id;

    @Label("Port Space")
    String portSpace;

    @Label("From")
    String from;

    @Label("To")
    String to;
}
