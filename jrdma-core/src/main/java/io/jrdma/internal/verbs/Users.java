package io.jrdma.internal.verbs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Wording of the EBUSY errors of resources closed while others still use them: what is left, and how many. */
final class Users {
    /** QP numbers named in a message before the rest are only counted. */
    static final int NAMED = 4;

    private Users() {
    }

    /** "1 QP (0x11)", "3 QPs (0x11, 0x12, 0x13)", "6 QPs (0x11, 0x12, 0x13, 0x14, ...)". */
    static String qps(Collection<QpImpl> qps) {
        List<Integer> numbers = new ArrayList<>();
        for (QpImpl q : qps) {
            numbers.add(q.qpNum());
        }
        numbers.sort(null);
        StringBuilder sb = new StringBuilder(count(numbers.size(), "QP", "QPs")).append(" (");
        for (int i = 0; i < numbers.size() && i < NAMED; i++) {
            sb.append(i == 0 ? "" : ", ").append("0x").append(Integer.toHexString(numbers.get(i)));
        }
        return sb.append(numbers.size() > NAMED ? ", ...)" : ")").toString();
    }

    /** "1 CQ", "2 CQs". */
    static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    /** "a", "a and b", "a, b and c". */
    static String join(List<String> parts) {
        if (parts.size() <= 1) {
            return parts.isEmpty() ? "" : parts.get(0);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.get(parts.size() - 1);
    }
}
