package kgviz.realkafka;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Member JVMs started ahead of time, so that adding or restarting a member costs what it costs in
 * Kafka (the client's own start-up), not a JVM start. Every JVM it ever started is killed by
 * {@link #close}.
 */
final class AgentPool implements AutoCloseable {
    private final LinkedBlockingQueue<AgentHandle> ready = new LinkedBlockingQueue<>();
    private final List<AgentHandle> all = new ArrayList<>();
    private final ExecutorService starter;
    private final Path dir;
    private final AtomicInteger n = new AtomicInteger();
    private volatile boolean closed;
    private final Path archive; // a CDS archive of the agent's classes, or null

    private List<String> jvm() {
        List<String> c = new ArrayList<>(List.of(Broker.javaBin(), "-Xms32m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:CICompilerCount=1", "-Xss512k", "-Djava.awt.headless=true",
            "-Dlog4j2.configurationFile=" + dir.resolve("agent-log4j2.properties").toUri()));
        return c;
    }

    /**
     * Dumps the classes a warmed-up agent loaded into a class-data-sharing archive (JDK 13+
     * dynamic CDS), which halves each member JVM's start-up CPU. Best effort: without it the
     * agents start as usual.
     */
    private Path makeClassArchive() {
        Path jsa = dir.resolve("agent.jsa");
        try {
            List<String> c = jvm();
            c.add("-XX:ArchiveClassesAtExit=" + jsa);
            c.addAll(List.of("-cp", System.getProperty("java.class.path"), Agent.class.getName()));
            Process p = new ProcessBuilder(c).redirectError(dir.resolve("agent-archive.log").toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close(); // the agent warms up, then sees EOF and exits
            if (p.waitFor(120, TimeUnit.SECONDS) && Files.size(jsa) > 0) return jsa;
            p.destroyForcibly();
        } catch (Exception e) {
            // no archive
        }
        return null;
    }

    AgentPool(Path dir, int parallelStarts) throws Exception {
        this.dir = dir;
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("agent-log4j2.properties"), String.join("\n",
            "status = error",
            "appender.err.type = Console",
            "appender.err.name = err",
            "appender.err.target = SYSTEM_ERR",
            "appender.err.layout.type = PatternLayout",
            "appender.err.layout.pattern = %d{UNIX_MILLIS} %p %c{1} %m%n",
            "rootLogger.level = warn",
            "rootLogger.appenderRef.err.ref = err",
            "logger.coord.name = org.apache.kafka.clients.consumer.internals",
            "logger.coord.level = info",
            "logger.txn.name = org.apache.kafka.clients.producer.internals.TransactionManager",
            "logger.txn.level = info",
            ""));
        this.archive = makeClassArchive();
        this.starter = Executors.newFixedThreadPool(parallelStarts, r -> {
            Thread t = new Thread(r, "agent-starter");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts count more JVMs in the background. */
    void warm(int count) {
        for (int i = 0; i < count; i++) starter.submit(this::startOne);
    }

    private void startOne() {
        if (closed) return;
        try {
            int id = n.incrementAndGet();
            Path log = dir.resolve("agent-" + id + ".log");
            List<String> c = jvm();
            if (archive != null) c.add("-XX:SharedArchiveFile=" + archive);
            c.addAll(List.of("-cp", System.getProperty("java.class.path"), Agent.class.getName()));
            ProcessBuilder pb = new ProcessBuilder(c);
            pb.redirectError(log.toFile());
            Process p = pb.start();
            AgentHandle h = new AgentHandle(p, log);
            synchronized (all) {
                all.add(h);
                if (closed) {
                    h.kill();
                    return;
                }
            }
            if (h.awaitReady(60_000)) ready.add(h);
            else h.kill();
        } catch (Exception e) {
            if (!closed) System.err.println("realkafka: an agent JVM did not start: " + e);
        }
    }

    /** A started, idle member JVM; starts another one in its place. */
    AgentHandle take(long timeoutMs) throws InterruptedException {
        warm(1);
        AgentHandle h = ready.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (h == null) throw new IllegalStateException("no member JVM ready within " + timeoutMs + " ms");
        return h;
    }

    @Override
    public void close() {
        closed = true;
        starter.shutdownNow();
        List<AgentHandle> copy;
        synchronized (all) {
            copy = new ArrayList<>(all);
        }
        for (AgentHandle h : copy) h.process.destroyForcibly();
        for (AgentHandle h : copy) h.kill();
    }
}
