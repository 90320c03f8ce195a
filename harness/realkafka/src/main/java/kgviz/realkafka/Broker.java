package kgviz.realkafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A fresh single-node Kafka broker (KRaft: broker and controller in one process) on 127.0.0.1,
 * on free ports, with its data in a temporary directory. {@link #start} returns once the broker
 * answers; {@link #close} stops exactly the process it started (SIGTERM, then SIGKILL after 15 s)
 * and deletes the directory. A JVM shutdown hook closes it on Ctrl-C, and the broker JVM itself
 * exits when this JVM's pipe to it closes (see {@link BrokerMain}), so no broker outlives its run.
 *
 * <p>Settings: docs/KAFKA-FACTS §8, with the group and transaction timeouts scaled to the tick.
 */
public final class Broker implements AutoCloseable {
    public final String name;
    public final Path dir;
    public final int port, controllerPort, proxiedPort;
    public final String bootstrap;
    public final short transactionVersion;
    private final Process process;
    private final OutputStream guardPipe;
    private final Thread hook;
    private volatile boolean closed;

    private Broker(String name, Path dir, int port, int controllerPort, int proxiedPort, short tv, Process process) {
        this.name = name;
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.proxiedPort = proxiedPort;
        this.bootstrap = "127.0.0.1:" + port;
        this.transactionVersion = tv;
        this.process = process;
        this.guardPipe = process.getOutputStream();
        this.hook = new Thread(this::close, "kgviz-broker-stop-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The broker's request log (kafka.request.logger at DEBUG), one "epoch-ms message" per line. */
    public Path requestLog() {
        return dir.resolve("logs/requests.log");
    }

    /** The group and transaction coordinators' INFO log. */
    public Path coordinatorLog() {
        return dir.resolve("logs/coordinator.log");
    }

    public Path logDir() {
        return dir.resolve("data");
    }

    /**
     * Starts a broker. proxyAdvertisedPort: the port the PROXIED listener is advertised on (a
     * {@link Proxy} in front of it), or 0 for none. transactionVersion: the transaction.version
     * feature at format time (2 is 4.1.1's default).
     */
    public static Broker start(String name, long tickMs, int proxyAdvertisedPort, int proxiedPort, short transactionVersion,
                               long maxLifeSeconds, long readyTimeoutMs) throws Exception {
        Path dir = Files.createTempDirectory("kgviz-kafka-" + name + "-");
        Files.createDirectories(dir.resolve("logs"));
        int port = freePort(), cport = freePort();
        if (proxiedPort == 0) proxiedPort = freePort();
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + cport);
        String listeners = "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + cport + ",PROXIED://127.0.0.1:" + proxiedPort;
        p.put("listeners", listeners);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port + ",PROXIED://127.0.0.1:" + (proxyAdvertisedPort == 0 ? proxiedPort : proxyAdvertisedPort));
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.resolve("data").toString());
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("group.min.session.timeout.ms", "100");
        // the timeout abort happens only at this check (default 10 s): check every tick
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", String.valueOf(tickMs));
        p.put("transaction.max.timeout.ms", String.valueOf(tickMs * 1000));
        // KIP-848 groups: the broker owns the session timeout and the heartbeat interval (6 and 1 ticks)
        p.put("group.consumer.min.session.timeout.ms", "100");
        p.put("group.consumer.session.timeout.ms", String.valueOf(6 * tickMs));
        p.put("group.consumer.min.heartbeat.interval.ms", "50");
        p.put("group.consumer.heartbeat.interval.ms", String.valueOf(tickMs));
        p.put("group.consumer.assignors", "uniform,range");
        // share groups (KIP-932): the lower bounds of the group configs ShareRun sets in ticks
        // (ShareGroupConfig group.share.min.record.lock.duration.ms 15000, GroupCoordinatorConfig
        // group.share.min.session.timeout.ms 45000 and min.heartbeat.interval.ms 5000 by default)
        p.put("group.share.min.record.lock.duration.ms", "1000"); // its own lower bound (ShareGroupConfig)
        p.put("group.share.min.session.timeout.ms", "100");
        p.put("group.share.min.heartbeat.interval.ms", "50");
        p.put("log.segment.bytes", String.valueOf(64 * 1024 * 1024));
        p.put("log.cleaner.enable", "false");
        p.put("socket.request.max.bytes", String.valueOf(16 * 1024 * 1024));
        Path props = dir.resolve("server.properties");
        StringBuilder sb = new StringBuilder("# written by kgviz.realkafka.Broker\n");
        p.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Files.writeString(props, sb.toString());
        Path log4j = dir.resolve("log4j2.properties");
        Files.writeString(log4j, log4jConfig(dir.resolve("logs")));

        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xms256m", "-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Djava.awt.headless=true", "-Dlog4j2.configurationFile=" + log4j.toUri(),
            "-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(),
            props.toString(), Uuid.randomUuid().toString(), dir.toString(), String.valueOf(maxLifeSeconds)));
        if (transactionVersion != 2) cmd.add("transaction.version=" + transactionVersion);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectOutput(dir.resolve("logs/stdout.log").toFile());
        pb.redirectError(dir.resolve("logs/stderr.log").toFile());
        Process proc = pb.start();
        Broker b = new Broker(name, dir, port, cport, proxiedPort, transactionVersion, proc);
        try {
            b.awaitReady(readyTimeoutMs);
        } catch (Exception e) {
            String out = tail(dir.resolve("logs/stderr.log")) + tail(dir.resolve("logs/server.log"));
            b.close();
            throw new IllegalStateException("broker " + name + " did not start: " + e.getMessage() + "\n" + out, e);
        }
        return b;
    }

    private static String log4jConfig(Path logs) {
        String l = logs.toString();
        return String.join("\n",
            "status = error",
            "appender.server.type = File",
            "appender.server.name = server",
            "appender.server.fileName = " + l + "/server.log",
            "appender.server.layout.type = PatternLayout",
            "appender.server.layout.pattern = %d{UNIX_MILLIS} %p %c %m%n",
            "appender.requests.type = File",
            "appender.requests.name = requests",
            "appender.requests.fileName = " + l + "/requests.log",
            "appender.requests.immediateFlush = true",
            "appender.requests.layout.type = PatternLayout",
            "appender.requests.layout.pattern = %d{UNIX_MILLIS} %m%n",
            "appender.coord.type = File",
            "appender.coord.name = coord",
            "appender.coord.fileName = " + l + "/coordinator.log",
            "appender.coord.layout.type = PatternLayout",
            "appender.coord.layout.pattern = %d{UNIX_MILLIS} %c{1} %m%n",
            "rootLogger.level = warn",
            "rootLogger.appenderRef.server.ref = server",
            "logger.requests.name = kafka.request.logger",
            "logger.requests.level = debug",
            "logger.requests.additivity = false",
            "logger.requests.appenderRef.requests.ref = requests",
            "logger.group.name = org.apache.kafka.coordinator.group",
            "logger.group.level = info",
            "logger.group.additivity = false",
            "logger.group.appenderRef.coord.ref = coord",
            "logger.txn.name = kafka.coordinator.transaction",
            "logger.txn.level = info",
            "logger.txn.additivity = false",
            "logger.txn.appenderRef.coord.ref = coord",
            "logger.txn2.name = org.apache.kafka.coordinator.transaction",
            "logger.txn2.level = info",
            "logger.txn2.additivity = false",
            "logger.txn2.appenderRef.coord.ref = coord",
            "") ;
    }

    private void awaitReady(long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000");
        Exception last = null;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException("the broker process exited with " + process.exitValue());
            try (Admin a = Admin.create(ap)) {
                a.describeCluster().nodes().get(3, TimeUnit.SECONDS);
                FeatureMetadata f = a.describeFeatures().featureMetadata().get(3, TimeUnit.SECONDS);
                var tv = f.finalizedFeatures().get("transaction.version");
                short level = tv == null ? 0 : tv.maxVersionLevel();
                if (level != transactionVersion) {
                    throw new IllegalStateException("transaction.version is " + level + ", expected " + transactionVersion);
                }
                a.listTopics().names().get(3, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("not ready within " + timeoutMs + " ms" + (last == null ? "" : ": " + last));
    }

    public boolean alive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Stops the broker process this object started, then deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            if (Thread.currentThread() != hook) Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already
        }
        process.destroy(); // SIGTERM: kafka.Kafka's shutdown hook stops the server
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            guardPipe.close();
        } catch (IOException e) {
            // already gone
        }
        if (System.getenv("KGVIZ_KAFKA_KEEP") == null) BrokerMain.deleteQuietly(dir);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String tail(Path f) {
        try {
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())) + "\n";
        } catch (IOException e) {
            return "";
        }
    }
}
