package io.jrdma.tools.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What a tool takes from the command that runs it: the context it prints to. The {@code jrdma}
 * command implements it, and each tool names it as its picocli parent, so the tools need not know
 * the command that lists them.
 */
public interface ToolHost {

    /**
     * The context the tools of this run print to.
     *
     * @return the context
     */
    ToolContext context();

    /**
     * jrdma's version, from the build.
     *
     * @return e.g. {@code 0.1.0}, or {@code unknown}
     * @throws IOException when the version resource cannot be read
     */
    static String version() throws IOException {
        Properties p = new Properties();
        try (InputStream in = ToolHost.class.getResourceAsStream("/io/jrdma/tools/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        }
        return p.getProperty("version", "unknown");
    }
}
