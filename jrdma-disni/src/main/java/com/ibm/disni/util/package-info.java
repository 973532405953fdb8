/** DiSNI's helpers: byte order, direct-buffer addresses, a pool of direct buffers, a logger, a stop watch. */
package com.ibm.disni.util;
