/**
 * The connection-manager conformance suite ({@link io.jrdma.testkit.cm.CmConformanceSuite}) and the
 * fixture a provider supplies to run it ({@link io.jrdma.testkit.cm.CmFixture}).
 */
package io.jrdma.testkit.cm;
