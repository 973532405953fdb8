package io.jrdma.internal.engine;

import java.util.Arrays;

/**
 * The owning agent's timers: an intrusive binary min-heap of {@link Timer}s by deadline. Arming,
 * re-arming and cancelling allocate nothing once the heap has grown to the number of timers. Whoever
 * runs the agent's duty cycle only, except {@link #nanosToNext()}.
 */
public final class TimerQueue {
    private final NanoClock clock;
    private Timer[] heap = new Timer[64];
    private int size;

    /** A queue reading time from {@code clock}. */
    public TimerQueue(NanoClock clock) {
        this.clock = clock;
    }

    /** The queue's clock. */
    public NanoClock clock() {
        return clock;
    }

    /** Arms (or re-arms) {@code t} to fire {@code delayNanos} from now. */
    public void schedule(Timer t, long delayNanos) {
        scheduleAt(t, clock.nanoTime() + delayNanos);
    }

    /** Arms (or re-arms) {@code t} to fire at {@code deadline}. */
    public void scheduleAt(Timer t, long deadline) {
        if (t.index >= 0) {
            t.deadline = deadline;
            int i = t.index;
            siftUp(i);
            siftDown(t.index);
            return;
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        t.deadline = deadline;
        t.index = size;
        heap[size++] = t;
        siftUp(t.index);
    }

    /** Disarms {@code t} if armed. */
    public void cancel(Timer t) {
        int i = t.index;
        if (i < 0) {
            return;
        }
        Timer last = heap[--size];
        heap[size] = null;
        t.index = -1;
        if (last != t) {
            heap[i] = last;
            last.index = i;
            siftUp(i);
            siftDown(last.index);
        }
    }

    /** Fires every expired timer; returns how many fired. */
    public int poll() {
        int fired = 0;
        long now = clock.nanoTime();
        while (size > 0 && heap[0].deadline - now <= 0) {
            Timer t = heap[0];
            cancel(t);
            t.action.run();
            fired++;
        }
        return fired;
    }

    /**
     * Nanoseconds until the next deadline, or {@code Long.MAX_VALUE} if none is armed. The one method
     * another thread may call: an agent thread bounds its park with it while an application thread
     * runs the agent's duty cycle (siw's application-driven mode, and its control path, which runs
     * engine commands on the caller when nobody holds the engine). It may then see the heap between
     * two writes, so it returns a hint (0: look again at once), never throws.
     */
    public long nanosToNext() {
        if (size == 0) {
            return Long.MAX_VALUE;
        }
        Timer first = heap[0];
        return first == null ? 0 : Math.max(0, first.deadline - clock.nanoTime());
    }

    /** The number of armed timers. */
    public int size() {
        return size;
    }

    private void siftUp(int i) {
        Timer t = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Timer p = heap[parent];
            if (p.deadline - t.deadline <= 0) {
                break;
            }
            heap[i] = p;
            p.index = i;
            i = parent;
        }
        heap[i] = t;
        t.index = i;
    }

    private void siftDown(int i) {
        Timer t = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].deadline - heap[child].deadline < 0) {
                child = right;
            }
            if (t.deadline - heap[child].deadline <= 0) {
                break;
            }
            heap[i] = heap[child];
            heap[i].index = i;
            i = child;
        }
        heap[i] = t;
        t.index = i;
    }
}
