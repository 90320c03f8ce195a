package kgviz.realkafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

/**
 * One simulated member (C1, C2, ...) in its own JVM: a KafkaConsumer in the group plus a
 * KafkaProducer to invoices, driven by a poll loop that mirrors kgviz's member (process records
 * one tick each, produce inv(record) for each, commit after / before / auto / in a transaction).
 *
 * <p>A member is a separate process so that a crash is a real kill -9: {@link Runtime#halt} at the
 * exact crash point, no shutdown hooks, no commit, no LeaveGroup, the OS closes the sockets. The
 * consumer's heartbeat thread (classic) or background thread (KIP-848) really runs while the
 * application thread is stuck in a slow record.
 *
 * <p>Protocol with the orchestrator ({@link AgentHandle}): JSON lines. On stdin, commands:
 * {@code start} (the member's configuration), {@code arm} (a crash or slow-record trigger the
 * member fires itself at the exact record), {@code crash} (now), {@code close}, {@code zombie}
 * (stop after the current batch). On stdout, events with the wall-clock time {@code t} (epoch ms);
 * the orchestrator turns times into ticks.
 */
public final class Agent {
    private static final ObjectMapper M = new ObjectMapper();
    private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

    // configuration (from the start command)
    private String name, prefix, group, invoices, commit, producerMode, protocol, instanceId, txId;
    private List<String> topics;
    private long tickMs;
    private int slowTicks, processTicks;

    private KafkaConsumer<String, String> consumer;
    private KafkaProducer<String, String> producer;

    // triggers armed by the orchestrator; read by the application thread
    private volatile String crashWhenPolled; // crash in the first batch holding this record...
    private volatile int crashAfterRecords = -1; // ...after this many records of it
    private volatile String slowAfterPolled; // the record after this one (same batch) is slow
    private volatile String slowAfterProcessed; // the next record started after this one is slow
    private volatile boolean slowNext;
    private boolean slowSecondOfNextBatch;
    private volatile boolean crashAfterOffsets; // crash after sendOffsetsToTransaction, before EndTxn
    private volatile boolean closeRequested, zombie, hold;
    private boolean held;
    private int pendingCrashAt = -1;
    private final java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);

    private final Map<TopicPartition, Long> lastGen = new HashMap<>();
    private int lastReportedGen = Integer.MIN_VALUE;
    private String lastReportedMemberId = "";
    private String lastReportedAssignment = "";

    public static void main(String[] args) throws Exception {
        System.setOut(System.err); // stdout carries the JSON lines only
        // Warm the client classes while the orchestrator has nothing for this JVM yet.
        warmUp();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        emit(Map.of("ev", "ready"));
        String line = in.readLine();
        if (line == null) {
            System.exit(0); // (a normal exit: the class-archive run dumps its archive here)
        }
        Agent a = new Agent();
        JsonNode start = M.readTree(line);
        a.configure(start);
        Thread commands = new Thread(() -> a.readCommands(in), "agent-commands");
        commands.setDaemon(true);
        commands.start();
        if (start.path("waitGo").asBoolean(false)) {
            // prepared ahead of a restart: the clients exist and have connected (metadata only: no
            // group, no producer id); the member starts on "go"
            try {
                a.consumer.partitionsFor(a.topics.get(0), Duration.ofMillis(a.tickMs * 20));
                a.producer.partitionsFor(a.invoices);
            } catch (KafkaException e) {
                // it connects on "go" then
            }
            a.event("prepared");
            a.go.await();
            a.event("go");
        }
        try {
            a.run();
        } catch (Throwable t) {
            a.event("error", "phase", "run", "exception", t.getClass().getSimpleName(), "message", String.valueOf(t.getMessage()));
        }
        emit(Map.of("ev", "exit"));
        Runtime.getRuntime().halt(0);
    }

    /**
     * Builds and closes a consumer of each protocol and a transactional producer against an
     * address nobody listens on, so the real member starts with its classes loaded (a member's
     * start then costs what a warm client costs, not a JVM's class loading).
     */
    private static void warmUp() {
        for (String protocol : List.of("classic", "consumer")) {
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
            c.put(ConsumerConfig.GROUP_ID_CONFIG, "warm-up");
            c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            try (KafkaConsumer<String, String> w = new KafkaConsumer<>(c)) {
                w.subscribe(List.of("warm-up"));
                w.close(Duration.ZERO);
            } catch (Exception e) {
                // a warm-up only
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "warm-up");
        try (KafkaProducer<String, String> w = new KafkaProducer<>(p)) {
            w.close(Duration.ZERO);
        } catch (Exception e) {
            // a warm-up only
        }
    }

    private void readCommands(BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                JsonNode c = M.readTree(line);
                switch (c.path("op").asText()) {
                    case "arm" -> {
                        if (c.has("crashWhenPolled")) {
                            crashAfterRecords = c.path("afterRecords").asInt(2);
                            crashWhenPolled = c.path("crashWhenPolled").asText();
                        }
                        if (c.has("slowAfterPolled")) slowAfterPolled = c.path("slowAfterPolled").asText();
                        if (c.has("slowAfterProcessed")) slowAfterProcessed = c.path("slowAfterProcessed").asText();
                        if (c.path("slowNext").asBoolean(false)) slowNext = true;
                        if (c.path("crashAfterOffsets").asBoolean(false)) crashAfterOffsets = true;
                    }
                    case "crash" -> crash("Crash(Immediately())");
                    case "close" -> closeRequested = true;
                    case "zombie" -> zombie = true;
                    case "go" -> go.countDown();
                    case "hold" -> hold = true;
                    case "release" -> hold = false;
                    default -> event("error", "phase", "command", "message", "unknown command " + line);
                }
            }
        } catch (Exception e) {
            // fall through: the orchestrator is gone
        }
        // stdin closed: the orchestrator ended (or died); never outlive it
        Runtime.getRuntime().halt(0);
    }

    private void configure(JsonNode s) {
        ClientLogWatch.install(logger -> event("poll-timeout", "logger", logger));
        name = s.path("name").asText();
        prefix = s.path("prefix").asText();
        group = s.path("group").asText();
        invoices = s.path("invoices").asText();
        topics = new ArrayList<>();
        s.path("topics").forEach(t -> topics.add(t.asText()));
        commit = s.path("commit").asText("after");
        producerMode = s.path("producer").asText("idempotent");
        protocol = s.path("protocol").asText("classic");
        instanceId = s.path("instanceId").asText("");
        txId = s.path("transactionalId").asText("");
        tickMs = s.path("tickMs").asLong();
        slowTicks = s.path("slowTicks").asInt(15);
        processTicks = s.path("recordTicks").asInt(1);
        String bootstrap = s.path("bootstrap").asText();
        String clientId = s.path("clientId").asText();

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, s.path("maxPollRecords").asText("3"));
        c.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, ms(s, "maxPollIntervalTicks"));
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, String.valueOf(tickMs));
        c.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, String.valueOf(Math.max(50, tickMs / 3)));
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, String.valueOf(commit.equals("auto")));
        if (commit.equals("auto")) c.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, ms(s, "autoCommitIntervalTicks"));
        if (!instanceId.isEmpty()) c.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        if (protocol.equals("consumer")) {
            // KIP-848: the broker owns the session timeout, the heartbeat interval and the assignor
            if (s.hasNonNull("remoteAssignor")) c.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, s.path("remoteAssignor").asText());
        } else {
            c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ms(s, "sessionTimeoutTicks"));
            c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ms(s, "heartbeatIntervalTicks"));
            c.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignorClass(s.path("assignor").asText("range")));
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms(s, "requestTimeoutTicks"));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(tickMs * 200));
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, String.valueOf(Math.max(20, tickMs / 10)));
        // a retry after a lost answer reconnects at once (the default backoff grows to 1 s, 2 ticks)
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, String.valueOf(Math.max(50, tickMs / 5)));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(tickMs * 100));
        switch (producerMode) {
            case "plain" -> {
                p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
                p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
            }
            case "transactional" -> {
                p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txId);
                p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, ms(s, "transactionTimeoutTicks"));
            }
            default -> p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        }
        event("start", "protocol", protocol, "commit", commit, "producer", producerMode, "instance_id", instanceId);
        consumer = new KafkaConsumer<>(c);
        producer = new KafkaProducer<>(p);
    }

    private String ms(JsonNode s, String ticksField) {
        return String.valueOf(s.path(ticksField).asLong() * tickMs);
    }

    private static String assignorClass(String a) {
        return switch (a) {
            case "range" -> "org.apache.kafka.clients.consumer.RangeAssignor";
            case "roundrobin", "round-robin" -> "org.apache.kafka.clients.consumer.RoundRobinAssignor";
            case "sticky" -> "org.apache.kafka.clients.consumer.StickyAssignor";
            case "cooperative-sticky" -> "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
            default -> throw new IllegalArgumentException("unknown assignor " + a);
        };
    }

    // --- the application thread ---

    private void run() throws Exception {
        if (producerMode.equals("transactional")) {
            try {
                producer.initTransactions();
                event("init-transactions");
            } catch (ProducerFencedException e) {
                fatal("InitProducerId", e);
            }
        }
        consumer.subscribe(topics, new Listener());
        while (true) {
            if (closeRequested) {
                closeGracefully();
                return;
            }
            if (hold != held) {
                // the orchestrator holds this member between two batches (it keeps polling, so it
                // heartbeats and takes part in rebalances, but reads nothing) and releases it later
                held = hold;
                if (held) consumer.pause(consumer.assignment());
                else consumer.resume(consumer.paused());
                event(held ? "held" : "released");
            } else if (held && !consumer.paused().containsAll(consumer.assignment())) {
                consumer.pause(consumer.assignment());
            }
            ConsumerRecords<String, String> recs;
            try {
                recs = consumer.poll(Duration.ofMillis(tickMs));
            } catch (FencedInstanceIdException e) {
                event("error", "phase", "poll", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
                fatalExit();
                return;
            } catch (KafkaException e) {
                event("error", "phase", "poll", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
                continue;
            }
            reportGroup("poll");
            if (recs.isEmpty()) {
                continue;
            }
            List<ConsumerRecord<String, String>> batch = new ArrayList<>();
            recs.forEach(batch::add);
            List<String> names = new ArrayList<>();
            for (ConsumerRecord<String, String> r : batch) names.add(r.value());
            event("polled", "records", names, "offsets", offsetsOf(batch));
            runBatch(batch, names);
            event("batch-end");
            if (zombie) {
                event("zombie-stop", "message", "the zombie finished its batch and stops");
                Runtime.getRuntime().halt(0);
            }
        }
    }

    private void runBatch(List<ConsumerRecord<String, String>> batch, List<String> names) throws Exception {
        int crashAt = pendingCrashAt;
        pendingCrashAt = -1;
        String cw = crashWhenPolled;
        if (cw != null && names.contains(cw)) {
            crashAt = crashAfterRecords;
            crashWhenPolled = null;
        }
        if (crashAt > batch.size()) {
            // kgviz: AfterRecords(n) counts the records of the current batch, then of the next one
            pendingCrashAt = crashAt;
            crashAt = -1;
        }
        String slowRecord = null;
        if (slowSecondOfNextBatch) {
            slowSecondOfNextBatch = false;
            if (names.size() > 1) slowRecord = names.get(1);
            else slowNext = true;
        }
        String sp = slowAfterPolled;
        if (sp != null && names.contains(sp)) {
            int i = names.indexOf(sp);
            slowAfterPolled = null;
            if (i + 1 < names.size()) slowRecord = names.get(i + 1);
            else slowNext = true;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = offsetsToCommit(batch);
        if (commit.equals("before")) {
            if (!commitSync(offsets, "before")) {
                return;
            }
        }
        boolean txn = commit.equals("transactional");
        if (txn) {
            producer.beginTransaction();
            event("begin-transaction");
        }
        int done = 0;
        boolean abortable = false;
        for (ConsumerRecord<String, String> r : batch) {
            if (done == crashAt) crash("Crash(AfterRecords(" + crashAt + "))");
            boolean slow = slowNext || r.value().equals(slowRecord);
            if (slow) slowNext = false;
            event(slow ? "slow-start" : "process-start", "record", r.value());
            Thread.sleep(tickMs * (slow ? slowTicks : processTicks));
            event("processed", "record", r.value(), "partition", shortName(r.topic(), r.partition()), "offset", r.offset());
            String sap = slowAfterProcessed;
            if (sap != null && sap.equals(r.value())) {
                slowAfterProcessed = null;
                // the record after it in its transaction: kgviz's batch holds records after p2.3; when the
                // real batch ends with it, the second record of the next batch (its transaction then open)
                if (r == batch.get(batch.size() - 1)) slowSecondOfNextBatch = true;
                else slowNext = true;
            }
            done++;
            if (!abortable) {
                try {
                    RecordMetadata md = producer.send(new ProducerRecord<>(invoices, 0, null, "inv(" + r.value() + ")")).get();
                    event("produced", "record", "inv(" + r.value() + ")", "offset", md.offset());
                } catch (ExecutionException ee) {
                    Throwable e = ee.getCause();
                    event("error", "phase", "produce", "record", "inv(" + r.value() + ")", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
                    if (e instanceof ProducerFencedException) {
                        fatal("Produce", e);
                    }
                    if (txn) abortable = true;
                } catch (KafkaException e) {
                    event("error", "phase", "produce", "record", "inv(" + r.value() + ")", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
                    if (e instanceof ProducerFencedException) fatal("Produce", e);
                    if (txn) abortable = true;
                }
            }
        }
        if (done == crashAt) crash("Crash(AfterRecords(" + crashAt + "))");
        switch (commit) {
            case "after" -> {
                producer.flush();
                commitSync(offsets, "after");
            }
            case "transactional" -> endTransaction(offsets, abortable);
            default -> {
            }
        }
    }

    private void endTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, boolean abortable) {
        if (!abortable) {
            try {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                event("offsets-to-transaction", "offsets", shortOffsets(offsets), "generation", consumer.groupMetadata().generationId());
                if (crashAfterOffsets) crash("Crash(Immediately()) after TxnOffsetCommit");
                producer.commitTransaction();
                event("commit-transaction", "offsets", shortOffsets(offsets));
                return;
            } catch (ProducerFencedException | UnsupportedVersionException | AuthorizationException e) {
                fatal("Transaction", e);
            } catch (KafkaException e) {
                Throwable cause = e.getCause() != null && e instanceof org.apache.kafka.common.KafkaException && !(e instanceof CommitFailedException) ? e.getCause() : e;
                event("error", "phase", "commit-transaction", "exception", e.getClass().getSimpleName(),
                    "cause", cause == e ? "" : cause.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
                if (cause instanceof ProducerFencedException) fatal("Transaction", cause);
            }
        }
        try {
            producer.abortTransaction();
            event("abort-transaction");
        } catch (ProducerFencedException e) {
            fatal("EndTxn(ABORT)", e);
        } catch (KafkaException e) {
            event("error", "phase", "abort-transaction", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
            if (e.getCause() instanceof ProducerFencedException || e instanceof InvalidProducerEpochException) fatal("EndTxn(ABORT)", e);
        }
        rewindToCommitted();
    }

    /** After an aborted transaction, read the committed offsets again (the page's recovery). */
    private void rewindToCommitted() {
        try {
            var assigned = consumer.assignment();
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned, Duration.ofMillis(tickMs * 20));
            Map<String, Long> seen = new TreeMap<>();
            for (TopicPartition tp : assigned) {
                OffsetAndMetadata om = committed.get(tp);
                long off = om == null ? 0 : om.offset();
                consumer.seek(tp, off);
                seen.put(shortName(tp.topic(), tp.partition()), off);
            }
            event("rewind", "offsets", seen);
        } catch (KafkaException e) {
            event("error", "phase", "rewind", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
        }
    }

    private boolean commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, String mode) {
        int gen = consumer.groupMetadata().generationId();
        try {
            consumer.commitSync(offsets);
            event("committed", "mode", mode, "offsets", shortOffsets(offsets), "generation", gen);
            return true;
        } catch (CommitFailedException e) {
            event("commit-failed", "mode", mode, "exception", e.getClass().getSimpleName(), "generation", gen, "message", String.valueOf(e.getMessage()));
        } catch (FencedInstanceIdException e) {
            event("commit-failed", "mode", mode, "exception", e.getClass().getSimpleName(), "generation", gen, "message", String.valueOf(e.getMessage()));
            fatalExit();
        } catch (KafkaException e) {
            event("commit-failed", "mode", mode, "exception", e.getClass().getSimpleName(), "generation", gen, "message", String.valueOf(e.getMessage()));
        }
        return false;
    }

    private void closeGracefully() {
        event("close-start");
        try {
            consumer.close(Duration.ofMillis(tickMs * 10));
        } catch (KafkaException e) {
            event("error", "phase", "close", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
        }
        // the member has left (or, static, stopped heartbeating): a restart may begin now
        event("closed");
        try {
            producer.close(Duration.ofMillis(tickMs * 10));
        } catch (KafkaException e) {
            event("error", "phase", "close", "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
        }
    }

    /** kill -9: nothing more leaves this process. */
    private void crash(String why) {
        event("crash", "why", why);
        OUT.flush();
        Runtime.getRuntime().halt(137);
    }

    /** A fatal error (PRODUCER_FENCED): the application exits without a goodbye, as kgviz's member does. */
    private void fatal(String api, Throwable e) {
        event("fatal", "api", api, "exception", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage()));
        fatalExit();
    }

    private void fatalExit() {
        OUT.flush();
        Runtime.getRuntime().halt(1);
    }

    // --- observation ---

    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            callback("revoked", partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (held) consumer.pause(partitions); // held members read nothing, also from a new assignment
            callback("assigned", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            callback("lost", partitions);
        }
    }

    private void callback(String kind, Collection<TopicPartition> partitions) {
        var gm = consumer.groupMetadata();
        List<String> ps = new ArrayList<>();
        for (TopicPartition tp : partitions) ps.add(shortName(tp.topic(), tp.partition()));
        ps.sort(null);
        List<String> owned = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) owned.add(shortName(tp.topic(), tp.partition()));
        owned.sort(null);
        event(kind, "partitions", ps, "generation", gm.generationId(), "member_id", gm.memberId(), "owned", owned);
    }

    /** Reports the group as this member sees it whenever its generation, member id or assignment changed. */
    private void reportGroup(String where) {
        var gm = consumer.groupMetadata();
        List<String> owned = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) owned.add(shortName(tp.topic(), tp.partition()));
        owned.sort(null);
        String a = String.join(" ", owned);
        if (gm.generationId() != lastReportedGen || !gm.memberId().equals(lastReportedMemberId) || !a.equals(lastReportedAssignment)) {
            lastReportedGen = gm.generationId();
            lastReportedMemberId = gm.memberId();
            lastReportedAssignment = a;
            event("group", "generation", gm.generationId(), "member_id", gm.memberId(), "owned", owned, "where", where);
        }
    }

    private String shortName(String topic, int partition) {
        String t = topic.startsWith(prefix) ? topic.substring(prefix.length()) : topic;
        return switch (t) {
            case "orders" -> "o" + partition;
            case "payments" -> "p" + partition;
            default -> t + "-" + partition;
        };
    }

    private Map<TopicPartition, OffsetAndMetadata> offsetsToCommit(List<ConsumerRecord<String, String>> batch) {
        Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> r : batch) {
            out.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        return out;
    }

    private Map<String, Long> shortOffsets(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<String, Long> m = new TreeMap<>();
        offsets.forEach((tp, om) -> m.put(shortName(tp.topic(), tp.partition()), om.offset()));
        return m;
    }

    private List<Long> offsetsOf(List<ConsumerRecord<String, String>> batch) {
        List<Long> o = new ArrayList<>();
        for (ConsumerRecord<String, String> r : batch) o.add(r.offset());
        return o;
    }

    private void event(String ev, Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ev", ev);
        for (int i = 0; i + 1 < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        emit(m);
    }

    private static void emit(Map<String, Object> m) {
        Map<String, Object> withTime = new LinkedHashMap<>();
        withTime.put("t", System.currentTimeMillis());
        withTime.putAll(m);
        try {
            String s = M.writeValueAsString(withTime);
            synchronized (OUT) {
                OUT.println(s);
                OUT.flush();
            }
        } catch (Exception e) {
            // nothing to do: stdout is the only channel
        }
    }
}
