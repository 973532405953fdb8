package io.jrdma.kernel;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs test classes without Maven (the interop rig's guest has only a JDK): {@code java -cp ...
 * io.jrdma.kernel.NativeSuiteMain CLASS...}; {@code -Dnative.suite.exclude=REGEX} leaves out the tests and
 * nested classes whose JUnit unique ids match. Prints each skipped test with its reason, each failure, and the
 * summary; exits 1 if anything failed. A failure is followed by the jrdma frames it was raised in.
 */
final class NativeSuiteMain {
    private NativeSuiteMain() {
    }

    /** The frames of jrdma's own classes where a failure was raised (the assertion's line in the suite). */
    private static void printWhere(Throwable t) {
        int shown = 0;
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("io.jrdma.") && shown++ < FRAMES) {
                System.out.println("    at " + e);
            }
        }
        if (t.getCause() != null && t.getCause() != t) {
            System.out.println("  caused by " + t.getCause());
            printWhere(t.getCause());
        }
    }

    /** The jrdma frames printed for each failure. */
    private static final int FRAMES = 6;

    public static void main(String[] args) {
        LauncherDiscoveryRequestBuilder b = LauncherDiscoveryRequestBuilder.request();
        for (String c : args) {
            try {
                b.selectors(selectClass(Class.forName(c)));
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("no test class " + c, e);
            }
        }
        String exclude = System.getProperty("native.suite.exclude", "");
        if (!exclude.isEmpty()) {
            java.util.regex.Pattern p = java.util.regex.Pattern.compile(exclude);
            b.filters((org.junit.platform.launcher.PostDiscoveryFilter) descriptor -> org.junit.platform.engine
                    .FilterResult.includedIf(!p.matcher(descriptor.getUniqueId().toString()).matches(),
                            () -> "kept", () -> "excluded by native.suite.exclude"));
        }
        LauncherDiscoveryRequest request = b.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener skips = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                if (id.isTest()) {
                    System.out.println("SKIP " + id.getDisplayName() + " [" + id.getUniqueId().replaceAll(
                            ".*\\[class:io.jrdma.kernel.", "").replaceAll("\\]/\\[(nested-class|method):", " ")
                            + "]: " + reason);
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, org.junit.platform.engine.TestExecutionResult r) {
                if (id.isTest() && r.getStatus() != org.junit.platform.engine.TestExecutionResult.Status.SUCCESSFUL) {
                    System.out.println(r.getStatus() + " " + id.getUniqueId().replaceAll(".*\\[class:io.jrdma.kernel.",
                            "") + ": " + r.getThrowable().map(Throwable::toString).orElse(""));
                    if (r.getStatus() == org.junit.platform.engine.TestExecutionResult.Status.FAILED) {
                        r.getThrowable().ifPresent(NativeSuiteMain::printWhere);
                    }
                } else if (r.getStatus() != org.junit.platform.engine.TestExecutionResult.Status.SUCCESSFUL) {
                    System.out.println(r.getStatus() + " container " + id.getDisplayName() + ": "
                            + r.getThrowable().map(Throwable::toString).orElse(""));
                } else if (id.isTest()) {
                    System.out.println("PASS " + id.getUniqueId().replaceAll(".*\\[class:io.jrdma.kernel.", ""));
                }
                System.out.flush();
            }
        };
        launcher.execute(request, summary, skips);
        TestExecutionSummary s = summary.getSummary();
        s.printTo(new PrintWriter(System.out, true));
        System.out.println("RESULT tests=" + s.getTestsFoundCount() + " passed=" + s.getTestsSucceededCount()
                + " skipped=" + (s.getTestsSkippedCount() + s.getTestsAbortedCount()) + " failed="
                + s.getTestsFailedCount());
        System.exit(s.getTotalFailureCount() == 0 ? 0 : 1);
    }
}
