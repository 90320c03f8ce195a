package kgviz.realkafka;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import java.util.function.Consumer;

/**
 * Watches the consumer's own log for what it does not tell the application: the heartbeat
 * thread's "consumer poll timeout has expired" (max.poll.interval.ms), after which a dynamic
 * member sends LeaveGroup and a static one just stops heartbeating
 * (AbstractCoordinator.handlePollTimeoutExpiry, AbstractHeartbeatRequestManager for KIP-848).
 */
final class ClientLogWatch extends AbstractAppender {
    private final Consumer<String> onPollTimeout;

    private ClientLogWatch(Consumer<String> onPollTimeout) {
        super("kgviz-client-log-watch", null, null, true, Property.EMPTY_ARRAY);
        this.onPollTimeout = onPollTimeout;
    }

    @Override
    public void append(LogEvent e) {
        String m = e.getMessage().getFormattedMessage();
        // Kafka's LogContext prefixes "[Consumer clientId=..., groupId=...] "
        if (m.toLowerCase(java.util.Locale.ROOT).contains("consumer poll timeout has expired")) onPollTimeout.accept(e.getLoggerName());
    }

    static void install(Consumer<String> onPollTimeout) {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration cfg = ctx.getConfiguration();
        ClientLogWatch w = new ClientLogWatch(onPollTimeout);
        w.start();
        cfg.addAppender(w);
        String name = "org.apache.kafka.clients.consumer.internals";
        LoggerConfig lc = cfg.getLoggerConfig(name);
        if (!lc.getName().equals(name)) {
            lc = new LoggerConfig(name, Level.INFO, true);
            cfg.addLogger(name, lc);
        }
        lc.addAppender(w, Level.WARN, null);
        ctx.updateLoggers();
    }
}
