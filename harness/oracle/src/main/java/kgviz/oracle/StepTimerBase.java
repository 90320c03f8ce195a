package kgviz.oracle;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import java.util.function.Supplier;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;

/**
 * The coordinator's timer (Kafka's CoordinatorTimer), stepped by the caller: a timeout fires only
 * when {@link #pollExpired} is called with a time at or past its deadline, in deadline order (ties
 * in the order they were scheduled), as the coordinator runtime's timer does with its own clock.
 * Scheduling a key again replaces its timeout (CoordinatorTimer's contract). StepTimer (one per
 * Kafka API, src/kafka41 and src/kafka44) implements CoordinatorTimer with it.
 */
class StepTimerBase {
    static final class Task {
        final String key;
        final long deadline;
        final long seq;
        final Supplier<CoordinatorResult<Void, CoordinatorRecord>> op;

        Task(String key, long deadline, long seq, Supplier<CoordinatorResult<Void, CoordinatorRecord>> op) {
            this.key = key;
            this.deadline = deadline;
            this.seq = seq;
            this.op = op;
        }
    }

    private final Time time;
    private final Map<String, Task> byKey = new HashMap<>();
    private final TreeSet<Task> queue = new TreeSet<>(
        Comparator.<Task>comparingLong(t -> t.deadline).thenComparingLong(t -> t.seq));
    private long seq;

    StepTimerBase(Time time) {
        this.time = time;
    }

    void add(String key, long delay, TimeUnit unit, Supplier<CoordinatorResult<Void, CoordinatorRecord>> op) {
        cancel(key);
        Task t = new Task(key, time.milliseconds() + unit.toMillis(delay), seq++, op);
        byKey.put(key, t);
        queue.add(t);
    }

    void addIfAbsent(String key, long delay, TimeUnit unit, Supplier<CoordinatorResult<Void, CoordinatorRecord>> op) {
        if (!byKey.containsKey(key)) add(key, delay, unit, op);
    }

    public void cancel(String key) {
        Task t = byKey.remove(key);
        if (t != null) queue.remove(t);
    }

    /** Whether a timeout is scheduled under key (CoordinatorTimer's isScheduled in newer versions). */
    public boolean isScheduled(String key) {
        return byKey.containsKey(key);
    }

    /**
     * Removes and returns the first timeout due at now, or null; with sinceSeq >= 0 only one due before
     * now or scheduled since sinceSeq (the timeouts due at a tick fire after its requests).
     */
    Task pollExpired(long now, long sinceSeq) {
        Task t = null;
        for (Task c : queue) {
            if (c.deadline > now) break;
            if (sinceSeq < 0 || c.deadline < now || c.seq >= sinceSeq) {
                t = c;
                break;
            }
        }
        if (t == null) return null;
        queue.remove(t);
        byKey.remove(t.key);
        return t;
    }

    long nextSeq() {
        return seq;
    }

    int size() {
        return queue.size();
    }
}
