package kgviz.oracle;

import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorTimer;

/** StepTimerBase as Kafka 4.4's CoordinatorTimer<CoordinatorRecord>. */
final class StepTimer extends StepTimerBase implements CoordinatorTimer<CoordinatorRecord> {
    StepTimer(Time time) {
        super(time);
    }

    @Override
    public void schedule(String key, long delay, TimeUnit unit, boolean retry, TimeoutOperation<CoordinatorRecord> op) {
        add(key, delay, unit, op::generateRecords);
    }

    @Override
    public void schedule(String key, long delay, TimeUnit unit, boolean retry, long retryBackoff, TimeoutOperation<CoordinatorRecord> op) {
        add(key, delay, unit, op::generateRecords);
    }

    @Override
    public void scheduleIfAbsent(String key, long delay, TimeUnit unit, boolean retry, TimeoutOperation<CoordinatorRecord> op) {
        addIfAbsent(key, delay, unit, op::generateRecords);
    }
}
