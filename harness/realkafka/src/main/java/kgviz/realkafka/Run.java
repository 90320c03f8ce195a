package kgviz.realkafka;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One scenario run on the real broker: its own topics, group and transactional ids (all prefixed
 * with the run's tag, so runs can share a broker), its members (one {@link Agent} JVM per
 * process), the steps the scenario took, and what {@link Recorder} collects at the end. Times are
 * kept in epoch ms and written in ticks from the run's start.
 */
final class Run {
    final String scenario, tag, title;
    final int demo, runIndex;
    final Broker broker;
    final Admin admin;
    final AgentPool pool;
    final Proxy proxy; // null unless the scenario loses responses
    final long tickMs;
    final Map<String, Object> world = new LinkedHashMap<>();
    final List<Map<String, Object>> steps = new ArrayList<>();
    final List<Member> processes = new ArrayList<>();
    final Map<String, Member> current = new LinkedHashMap<>();
    final List<Map<String, Object>> lsoSamples = new ArrayList<>();
    final List<Map<String, Object>> groupSnapshots = new ArrayList<>();
    final Map<String, Uuid> topicIds = new TreeMap<>();
    final java.util.ArrayDeque<AgentHandle> reserved = new java.util.ArrayDeque<>();
    long t0;
    boolean sampleLso, sampleGroup;
    private volatile boolean sampling;
    private Thread sampler;
    String failure;

    Run(String scenario, int runIndex, String tag, int demo, String title, Broker broker, Admin admin, AgentPool pool, Proxy proxy, long tickMs) {
        this.scenario = scenario;
        this.runIndex = runIndex;
        this.tag = tag;
        this.demo = demo;
        this.title = title;
        this.broker = broker;
        this.admin = admin;
        this.pool = pool;
        this.proxy = proxy;
        this.tickMs = tickMs;
        // the world's defaults (kgviz's DEMOS.md), in ticks
        world.put("assignor", "range");
        world.put("protocol", "classic");
        world.put("commit", "after");
        world.put("producer", "idempotent");
        world.put("isolation", "read_uncommitted");
        world.put("session.timeout.ms", 6);
        world.put("heartbeat.interval.ms", 1);
        world.put("max.poll.interval.ms", 12);
        world.put("max.poll.records", 3);
        world.put("auto.commit.interval.ms", 5);
        world.put("transaction.timeout.ms", 30);
        world.put("request.timeout.ms", 3);
        world.put("slow.record.ticks", 15);
        world.put("records.per.partition", 8);
    }

    String name(String base) {
        return tag + "." + base;
    }

    double tick(long t) {
        return Math.round((t - t0) * 10.0 / tickMs) / 10.0;
    }

    long now() {
        return System.currentTimeMillis();
    }

    /** A member process: one Agent JVM. */
    final class Member {
        final String name;
        final int process;
        final AgentHandle h;
        final Map<String, Object> cfg;
        final long startedAt;
        String state = "running"; // running, crashed, closed, zombie, exited
        long endedAt;

        Member(String name, int process, AgentHandle h, Map<String, Object> cfg, long startedAt) {
            this.name = name;
            this.process = process;
            this.h = h;
            this.cfg = cfg;
            this.startedAt = startedAt;
        }

        boolean inGroup() {
            refresh();
            return state.equals("running");
        }

        void refresh() {
            if (!state.equals("running") && !state.equals("zombie")) return;
            for (JsonNode e : h.events()) {
                // the first of these ends the process (a close is followed by the JVM's "exit")
                String ev = e.path("ev").asText();
                String end = switch (ev) {
                    case "crash" -> "crashed";
                    case "closed" -> "closed";
                    case "fatal", "zombie-stop", "exit" -> "exited";
                    default -> null;
                };
                if (end != null) {
                    state = end;
                    endedAt = e.path("t").asLong();
                    return;
                }
            }
            if (!h.alive() && (state.equals("running") || state.equals("zombie"))) {
                state = "exited";
                endedAt = now();
            }
        }

        /** The last (generation, owned) this process reported. */
        JsonNode lastGroupView() {
            JsonNode last = null;
            for (JsonNode e : h.events()) {
                String ev = e.path("ev").asText();
                if (ev.equals("group") || ev.equals("assigned") || ev.equals("revoked") || ev.equals("lost")) last = e;
            }
            return last;
        }

        /** Inside a batch (polled and not finished), or not yet polling. */
        boolean busy() {
            boolean inBatch = false, polling = false;
            for (JsonNode e : h.events()) {
                String ev = e.path("ev").asText();
                if (ev.equals("polled")) inBatch = true;
                else if (ev.equals("batch-end")) inBatch = false;
                else if (ev.equals("group")) polling = true;
            }
            return inBatch || !polling;
        }
    }

    // --- setup ---

    void createTopics(int recordsPerPartition) throws Exception {
        world.put("records.per.partition", recordsPerPartition);
        List<NewTopic> ts = List.of(new NewTopic(name("orders"), 3, (short) 1), new NewTopic(name("payments"), 3, (short) 1),
            new NewTopic(name("invoices"), 1, (short) 1));
        admin.createTopics(ts).all().get(30, TimeUnit.SECONDS);
        for (int attempt = 0; ; attempt++) {
            try {
                for (var e : admin.describeTopics(List.of(name("orders"), name("payments"), name("invoices"))).allTopicNames().get(30, TimeUnit.SECONDS).entrySet()) {
                    topicIds.put(e.getKey().substring(tag.length() + 1), e.getValue().topicId());
                }
                break;
            } catch (java.util.concurrent.ExecutionException e) {
                if (attempt > 50) throw e;
                Thread.sleep(100); // the new topics' metadata is on its way
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, name("prefill"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
            for (String[] t : new String[][] {{"orders", "o"}, {"payments", "p"}}) {
                for (int part = 0; part < 3; part++) {
                    for (int off = 0; off < recordsPerPartition; off++) {
                        prod.send(new ProducerRecord<>(name(t[0]), part, null, t[1] + part + "." + off));
                    }
                }
            }
            prod.flush();
        }
    }

    void start() {
        t0 = now();
        sampling = true;
        sampler = new Thread(this::sampleLoop, "sampler-" + tag);
        sampler.setDaemon(true);
        sampler.start();
    }

    /**
     * A run is a measurement of its scenario only if the machine kept up with the tick: no member
     * may exceed max.poll.interval.ms outside a slow record, and the coordinator may remove only
     * members that crashed, closed or were left behind. Otherwise the run is failed (and, by Main,
     * run again, at most twice more).
     */
    /** Set by scenarios where a member may legitimately stall past max.poll.interval.ms outside a slow record (demo 8's retry). */
    boolean pollTimeoutExpected;

    /**
     * How late the harness may start a closed member's next process, in ticks after the old one's close
     * returned: kgviz restarts it one tick after the close (a static member's close pauses its partitions
     * for exactly that tick: the meter's floor, 2 partitions x 1 tick), and a pause meter is compared within
     * the factor 1.5, so a restart later than 1.5 ticks measures the harness (its own await, the Admin's
     * describe, the JVM's wake-up on a busy machine), not Kafka. Recorded quiet runs: 0.8-1.1 ticks.
     */
    static final double MAX_RESTART_LATENESS_TICKS = 1.5;

    /**
     * The harness's own scheduled actions that came late: a restart of a closed static member (its next
     * process's "go") more than {@link #MAX_RESTART_LATENESS_TICKS} after the close returned. Only the
     * harness's side (when it meant to act, when it did) is looked at, never what Kafka answered.
     */
    List<String> lateActions() {
        List<String> late = new ArrayList<>();
        for (Member m : processes) {
            // a static member: its close sends no LeaveGroup, Stable() holds at once and the restart is due
            // at once (a dynamic member's restart waits for the rebalance its LeaveGroup started)
            if (!m.state.equals("closed") || String.valueOf(m.cfg.getOrDefault("instanceId", "")).isEmpty()) continue;
            Member next = processes.stream().filter(o -> o.name.equals(m.name) && o.process == m.process + 1).findFirst().orElse(null);
            if (next == null) continue;
            double lateTicks = (next.startedAt - m.endedAt) / (double) tickMs;
            if (lateTicks > MAX_RESTART_LATENESS_TICKS) {
                late.add(String.format(java.util.Locale.ROOT, "the harness restarted %s %.1f ticks after its close returned (at tick %s; at most %.1f)",
                    m.name, lateTicks, tick(m.endedAt), MAX_RESTART_LATENESS_TICKS));
            }
        }
        return late;
    }

    void validate(BrokerLogs logs) throws java.io.IOException {
        for (String l : lateActions()) fail(l + ": the machine was too busy for a " + tickMs + " ms tick");
        for (Member m : processes) {
            if (pollTimeoutExpected) break;
            boolean slow = false;
            for (JsonNode e : m.h.events()) {
                String ev = e.path("ev").asText();
                if (ev.equals("slow-start")) slow = true;
                if (ev.equals("poll-timeout") && !slow) {
                    fail(m.name + " (process " + m.process + ") exceeded max.poll.interval.ms outside a slow record at tick "
                        + tick(e.path("t").asLong()) + ": the machine was too busy for a " + tickMs + " ms tick");
                }
            }
        }
        logs.refresh();
        for (String[] l : logs.coordinatorLines(tag, t0, now())) {
            String msg = l[2];
            // KIP-848: a member fenced for not finishing a revocation within the rebalance timeout
            // (GroupMetadataManager "failed to transition from epoch") while no slow record held it: the poll came late
            if (!msg.contains("has failed, removing it from the group") && !msg.contains("session expired")
                && !msg.contains("failed to transition from epoch")) continue;
            long t = Long.parseLong(l[0]);
            for (Member m : processes) {
                boolean mine = false;
                for (JsonNode e : m.h.events()) {
                    String id = e.path("member_id").asText("");
                    if (!id.isEmpty() && msg.contains(id.startsWith(tag + ".") ? id.substring(tag.length() + 1) : id)) mine = true;
                }
                if (!mine) continue;
                m.refresh();
                boolean ended = !m.state.equals("running") && m.endedAt <= t + tickMs;
                boolean stuck = false;
                for (JsonNode e : m.h.events()) {
                    if (e.path("t").asLong() > t) break;
                    String ev = e.path("ev").asText();
                    if (ev.equals("slow-start")) stuck = true;
                    else if (ev.equals("processed")) stuck = false;
                }
                boolean restartedStatic = m.state.equals("closed") && !String.valueOf(m.cfg.getOrDefault("instanceId", "")).isEmpty()
                    && processes.stream().anyMatch(o -> o.name.equals(m.name) && o.process > m.process);
                if (restartedStatic) {
                    fail(m.name + " (static, closed) was removed at tick " + tick(t)
                        + " before its restart came back: the machine was too busy for a " + tickMs + " ms tick");
                } else if (msg.contains("failed to transition from epoch") && keptPace(m, t)) {
                    // Kafka's own fence, not the machine's: the member's batches kept pace with the
                    // tick for a whole rebalance timeout before it, yet it had not finished revoking
                    // (kafka-clients 4.4.0 starts a revocation only in poll(): kgviz
                    // WithReconciliation(ReconcileKafka440)). The comparison checks the fence against
                    // the simulation's (go test ./realkafka), which fences there too, or reports it.
                    continue;
                } else if (!ended && !stuck && !m.state.equals("zombie")) {
                    fail(m.name + " (process " + m.process + ") was removed by the coordinator at tick " + tick(t)
                        + " without a crash: the machine was too busy for a " + tickMs + " ms tick");
                }
            }
        }
    }

    /**
     * Whether member m kept pace with the tick for the rebalance timeout (max.poll.interval.ms) before
     * time t: it polled at least once, no slow record held it, every batch in that window took at most
     * one tick per record plus one, and no gap between the end of a batch and the next batch was longer
     * than 1.5 ticks. A member that was late (the machine too busy) fails this, and its fence stays a
     * "too slow" run.
     */
    boolean keptPace(Member m, long t) {
        long window = ((Number) m.cfg.getOrDefault("maxPollIntervalTicks", 12)).longValue() * tickMs;
        return keptPace(m.h.events(), t, window, tickMs);
    }

    /** keptPace on a member's events (each with "t" in ms and "ev"), for a window of windowMs before t. */
    public static boolean keptPace(List<JsonNode> events, long t, long windowMs, long tickMs) {
        long from = t - windowMs;
        long polledAt = -1, endedAt = -1;
        int records = 0, batches = 0;
        for (JsonNode e : events) {
            long et = e.path("t").asLong();
            if (et > t) break;
            String ev = e.path("ev").asText();
            if (et >= from && ev.equals("slow-start")) return false;
            if (ev.equals("polled")) {
                if (et >= from && endedAt >= 0 && et - endedAt > tickMs * 3 / 2) return false;
                polledAt = et;
                records = e.path("records").size();
            } else if (ev.equals("batch-end") && polledAt >= 0) {
                if (et >= from && et - polledAt > (long) (records + 1) * tickMs) return false;
                endedAt = et;
                if (et >= from) batches++;
            }
        }
        return batches > 0 && (polledAt <= endedAt || t - polledAt <= (long) (records + 1) * tickMs);
    }

    void stop() {
        sampling = false;
        if (sampler != null) {
            try {
                sampler.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Member m : processes) m.h.kill();
        for (AgentHandle h : reserved) h.kill();
        for (Prepared p : prepared.values()) p.h.kill();
    }

    void step(String action, String member, Object... kv) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("t", now());
        s.put("action", action);
        s.put("member", member == null ? "" : member);
        for (int i = 0; i + 1 < kv.length; i += 2) s.put((String) kv[i], kv[i + 1]);
        synchronized (steps) {
            steps.add(s);
        }
    }

    // --- actions (the kgviz scenario calls) ---

    /** AddMember(name, opts): opts override the world's defaults ("commit", "producer", "instanceId", "sessionTimeoutTicks", ...). */
    Member add(String name, Map<String, Object> opts) throws Exception {
        if (current.containsKey(name) && current.get(name).inGroup()) throw new IllegalStateException(name + " is running");
        Prepared p = prepared.remove(name);
        if (p == null) {
            Map<String, Object> cfg = config(name, opts);
            AgentHandle h = reserved.isEmpty() ? pool.take(120_000) : reserved.poll();
            return started(name, h, cfg, true);
        }
        Member m = started(name, p.h, p.cfg, false);
        p.h.send(Map.of("op", "go"));
        return m;
    }

    private record Prepared(AgentHandle h, Map<String, Object> cfg) {
    }

    private final Map<String, Prepared> prepared = new LinkedHashMap<>();

    /**
     * Prepares the member's next process: its JVM builds the consumer and the producer now and
     * starts (joins, InitProducerId) only at the next add/restart, so a restart costs what it
     * costs a warm client, as in kgviz, not a client's construction on a busy machine.
     */
    void prepare(String name, Map<String, Object> opts) throws InterruptedException {
        if (prepared.containsKey(name)) return;
        Map<String, Object> cfg = config(name, opts);
        cfg.put("waitGo", true);
        AgentHandle h = reserved.isEmpty() ? pool.take(120_000) : reserved.poll();
        h.send(cfg);
        prepared.put(name, new Prepared(h, cfg));
    }

    void prepare(String name) throws InterruptedException {
        prepare(name, restartOpts(member(name)));
    }

    /** Waits until the member's prepared process has built its clients (on a busy machine that takes ticks). */
    void awaitPrepared(String name, double maxTicks) throws InterruptedException {
        Prepared p = prepared.get(name);
        if (p == null) return;
        if (p.h.await(0, ev("prepared"), (long) (maxTicks * tickMs)) == null) fail(name + "'s prepared process was not ready within " + maxTicks + " ticks");
    }

    private Map<String, Object> config(String name, Map<String, Object> opts) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("op", "start");
        cfg.put("name", name);
        cfg.put("clientId", name(name));
        cfg.put("prefix", tag + ".");
        cfg.put("bootstrap", opts.containsKey("viaProxy") && proxy != null ? "127.0.0.1:" + proxy.port() : broker.bootstrap);
        cfg.put("group", name("billing"));
        cfg.put("topics", List.of(name("orders"), name("payments")));
        cfg.put("invoices", name("invoices"));
        cfg.put("tickMs", tickMs);
        cfg.put("assignor", world.get("assignor"));
        cfg.put("protocol", world.get("protocol"));
        if (world.containsKey("remote.assignor")) cfg.put("remoteAssignor", world.get("remote.assignor"));
        cfg.put("commit", world.get("commit"));
        cfg.put("producer", world.get("commit").equals("transactional") ? "transactional" : world.get("producer"));
        cfg.put("transactionalId", name("tx-" + name));
        cfg.put("sessionTimeoutTicks", world.get("session.timeout.ms"));
        cfg.put("heartbeatIntervalTicks", world.get("heartbeat.interval.ms"));
        cfg.put("maxPollIntervalTicks", world.get("max.poll.interval.ms"));
        cfg.put("maxPollRecords", world.get("max.poll.records"));
        cfg.put("autoCommitIntervalTicks", world.get("auto.commit.interval.ms"));
        cfg.put("transactionTimeoutTicks", world.get("transaction.timeout.ms"));
        cfg.put("requestTimeoutTicks", world.get("request.timeout.ms"));
        cfg.put("slowTicks", world.get("slow.record.ticks"));
        cfg.put("recordTicks", 1);
        cfg.putAll(opts);
        return cfg;
    }

    private Member started(String name, AgentHandle h, Map<String, Object> cfg, boolean send) {
        int proc = (int) processes.stream().filter(m -> m.name.equals(name)).count() + 1;
        Member m = new Member(name, proc, h, cfg, now());
        processes.add(m);
        current.put(name, m);
        step(proc == 1 ? "add" : "restart", name, "process", proc);
        if (send) h.send(cfg);
        return m;
    }

    Member add(String name) throws Exception {
        return add(name, Map.of());
    }

    Member member(String name) {
        return Objects.requireNonNull(current.get(name), name);
    }

    /** Crash(name, Immediately()): kill -9 of the member's process. */
    void crashNow(String name) throws Exception {
        Member m = member(name);
        step("crash", name, "point", "Immediately()");
        m.h.process.destroyForcibly();
        m.h.process.waitFor(5, TimeUnit.SECONDS);
        m.state = "crashed";
        m.endedAt = now();
    }

    /** Crash(name, AfterRecords(n)) armed for the first batch that holds record whenPolled. */
    void armCrash(String name, String whenPolled, int afterRecords) {
        step("arm-crash", name, "when_polled", whenPolled, "after_records", afterRecords);
        member(name).h.send(Map.of("op", "arm", "crashWhenPolled", whenPolled, "afterRecords", afterRecords));
    }

    /** SlowNext(name) right after Polled(name, record): the record after it in that batch is slow. */
    void armSlowAfterPolled(String name, String record) {
        step("arm-slow", name, "after_polled", record);
        member(name).h.send(Map.of("op", "arm", "slowAfterPolled", record));
    }

    /** SlowNext(name) right after Processed(name, record). */
    void armSlowAfterProcessed(String name, String record) {
        step("arm-slow", name, "after_processed", record);
        member(name).h.send(Map.of("op", "arm", "slowAfterProcessed", record));
    }

    /** Holds a member after its current batch: it keeps polling (heartbeats, rebalances) and reads nothing. */
    void hold(String name) {
        step("hold", name);
        member(name).h.send(Map.of("op", "hold"));
    }

    void release(String name) {
        step("release", name);
        member(name).h.send(Map.of("op", "release"));
    }

    /** Close(name): close() at the member's next poll; waits until it returned. */
    void close(String name) throws Exception {
        Member m = member(name);
        int from = m.h.size();
        step("close", name);
        m.h.send(Map.of("op", "close"));
        JsonNode e = m.h.await(from, n -> n.path("ev").asText().equals("closed"), 60 * tickMs);
        if (e == null) throw new IllegalStateException(name + " did not close");
        m.refresh();
    }

    /**
     * Restart(name): a new process for the member. A member stuck in a slow record is left running
     * as a zombie (it stops after its batch), as kgviz does; a running one is closed first.
     */
    Member restart(String name) throws Exception {
        Member old = member(name);
        old.refresh();
        if (old.state.equals("running")) {
            boolean stuck = false;
            for (JsonNode e : old.h.events()) {
                String ev = e.path("ev").asText();
                if (ev.equals("slow-start")) stuck = true;
                else if (ev.equals("processed")) stuck = false;
            }
            if (stuck) {
                step("zombie", name, "process", old.process);
                old.state = "zombie";
                Member n = add(name, restartOpts(old));
                old.h.send(Map.of("op", "zombie"));
                return n;
            }
            prepare(name, restartOpts(old));
            awaitPrepared(name, 120);
            close(name);
        } else {
            awaitPrepared(name, 120);
        }
        return add(name, restartOpts(old));
    }

    private Map<String, Object> restartOpts(Member old) {
        Map<String, Object> o = new LinkedHashMap<>(old.cfg);
        for (String k : List.of("op", "name", "waitGo", "clientId", "prefix", "bootstrap", "group", "topics", "invoices", "tickMs", "transactionalId")) o.remove(k);
        return o;
    }

    // --- waiting ---

    void sleepTicks(double n) throws InterruptedException {
        Thread.sleep((long) (n * tickMs));
    }

    /** Waits for an event of the member's current process; returns it or null after maxTicks. */
    JsonNode await(String name, Predicate<JsonNode> p, String desc, double maxTicks) throws InterruptedException {
        Member m = member(name);
        JsonNode e = m.h.await(0, p, (long) (maxTicks * tickMs));
        step("await", name, "condition", desc, "reached", e != null);
        if (e == null) fail("await " + desc + " for " + name + ": not reached within " + maxTicks + " ticks");
        return e;
    }

    static Predicate<JsonNode> ev(String type) {
        return n -> n.path("ev").asText().equals(type);
    }

    static Predicate<JsonNode> polled(String record) {
        return n -> n.path("ev").asText().equals("polled") && contains(n.path("records"), record);
    }

    static Predicate<JsonNode> processed(String record) {
        return n -> n.path("ev").asText().equals("processed") && n.path("record").asText().equals(record);
    }

    static boolean contains(JsonNode arr, String s) {
        for (JsonNode x : arr) if (x.asText().equals(s)) return true;
        return false;
    }

    void fail(String why) {
        if (failure == null) failure = why;
        System.err.println("realkafka " + scenario + "#" + runIndex + ": " + why);
    }

    /** RunUntil(Stable()): the group is stable, every running member in it and settled on one assignment, for a full tick. */
    boolean awaitStable(double maxTicks) throws Exception {
        long end = now() + (long) (maxTicks * tickMs);
        long since = -1;
        boolean first = true;
        while (now() < end) {
            boolean ok;
            try {
                ok = stableNow();
            } catch (java.util.concurrent.ExecutionException e) {
                ok = false; // the group does not exist yet
            }
            if (ok && first) {
                // nothing to wait for (kgviz's Stable() holds at once, e.g. after a static member's close)
                step("stable", "", "generation", currentGeneration());
                return true;
            }
            first = false;
            if (ok) {
                if (since < 0) since = now();
                else if (now() - since >= tickMs / 2) { // settled: not the short Stable between cooperative rounds
                    step("stable", "", "generation", currentGeneration());
                    return true;
                }
            } else {
                since = -1;
            }
            Thread.sleep(Math.max(20, tickMs / 5));
        }
        step("stable", "", "timeout", true);
        fail("Stable() not reached within " + maxTicks + " ticks");
        return false;
    }

    private int currentGeneration() {
        int g = -1;
        for (Member m : current.values()) {
            if (!m.inGroup()) continue;
            JsonNode v = m.lastGroupView();
            if (v != null) g = Math.max(g, v.path("generation").asInt());
        }
        return g;
    }

    private boolean stableNow() throws Exception {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(name("billing"))).all().get(10, TimeUnit.SECONDS).get(name("billing"));
        if (d.groupState() != GroupState.STABLE) return false;
        // every member the coordinator lists is a running process (a crashed one counts until it is
        // removed), except a static member that was closed and is expected back (kgviz's Stable())
        for (MemberDescription md : d.members()) {
            Member owner = null;
            for (Member m : processes) {
                for (JsonNode e : m.h.events()) {
                    if (e.path("member_id").asText().equals(md.consumerId())) owner = m;
                }
            }
            if (owner == null) return false;
            owner.refresh();
            if (owner.state.equals("running")) continue;
            if (owner.state.equals("closed") && !String.valueOf(owner.cfg.getOrDefault("instanceId", "")).isEmpty()) continue;
            return false;
        }
        Integer gen = null;
        for (Member m : current.values()) {
            if (!m.inGroup()) continue;
            JsonNode v = m.lastGroupView();
            if (v == null) return false;
            String mid = v.path("member_id").asText();
            MemberDescription md = d.members().stream().filter(x -> x.consumerId().equals(mid)).findFirst().orElse(null);
            if (md == null) return false;
            List<String> owned = new ArrayList<>();
            v.path("owned").forEach(x -> owned.add(x.asText()));
            List<String> adminOwned = shortNames(md.assignment().topicPartitions());
            if (!owned.equals(adminOwned)) return false;
            if (md.memberEpoch().isPresent()) {
                if (md.targetAssignment().isPresent() && !shortNames(md.targetAssignment().get().topicPartitions()).equals(adminOwned)) return false;
                if (d.groupEpoch().isPresent() && md.memberEpoch().get().intValue() != d.groupEpoch().get().intValue()) return false;
            }
            int g = v.path("generation").asInt();
            if (g <= 0) return false;
            if (gen == null) gen = g;
            else if (md.memberEpoch().isEmpty() && gen != g) return false;
        }
        return true;
    }

    List<String> shortNames(java.util.Collection<TopicPartition> tps) {
        List<String> out = new ArrayList<>();
        for (TopicPartition tp : tps) out.add(shortName(tp.topic(), tp.partition()));
        out.sort(null);
        return out;
    }

    String shortName(String topic, int partition) {
        String t = topic.startsWith(tag + ".") ? topic.substring(tag.length() + 1) : topic;
        return switch (t) {
            case "orders" -> "o" + partition;
            case "payments" -> "p" + partition;
            default -> t + "-" + partition;
        };
    }

    /**
     * RunUntil(Quiet()): every input partition committed to its end, no transaction open, every
     * running member back in poll() with nothing to do, for two ticks.
     */
    boolean awaitQuiet(double maxTicks) throws Exception {
        long end = now() + (long) (maxTicks * tickMs);
        long since = -1;
        int records = ((Number) world.get("records.per.partition")).intValue();
        while (now() < end) {
            boolean ok;
            try {
                ok = quietNow(records);
            } catch (java.util.concurrent.ExecutionException e) {
                ok = false;
            }
            if (ok) {
                if (since < 0) since = now();
                else if (now() - since >= 2 * tickMs) {
                    step("quiet", "");
                    return true;
                }
            } else {
                since = -1;
            }
            Thread.sleep(Math.max(50, tickMs / 3));
        }
        step("quiet", "", "timeout", true);
        fail("Quiet() not reached within " + maxTicks + " ticks");
        return false;
    }

    private boolean quietNow(int records) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> c = admin.listConsumerGroupOffsets(name("billing")).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        for (String t : List.of("orders", "payments")) {
            for (int p = 0; p < 3; p++) {
                OffsetAndMetadata om = c.get(new TopicPartition(name(t), p));
                if (om == null || om.offset() < records) return false;
            }
        }
        for (Member m : processes) {
            m.refresh();
            if (m.state.equals("zombie")) return false;
            if (m.state.equals("running") && m.busy()) return false;
        }
        if (world.get("commit").equals("transactional")) {
            List<String> ids = new ArrayList<>();
            for (Member m : processes) ids.add((String) m.cfg.get("transactionalId"));
            ids = ids.stream().distinct().toList();
            try {
                Map<String, TransactionDescription> tds = admin.describeTransactions(ids).all().get(10, TimeUnit.SECONDS);
                for (TransactionDescription td : tds.values()) {
                    TransactionState s = td.state();
                    if (s == TransactionState.ONGOING || s == TransactionState.PREPARE_COMMIT || s == TransactionState.PREPARE_ABORT
                        || s == TransactionState.PREPARE_EPOCH_FENCE) return false;
                }
            } catch (Exception e) {
                return false;
            }
        }
        return true;
    }

    // --- sampling: the LSO and high watermark of invoices-0, and KIP-848 group descriptions ---

    private void sampleLoop() {
        String lastLso = "", lastGroup = "";
        while (sampling) {
            try {
                if (sampleLso) {
                    TopicPartition tp = new TopicPartition(name("invoices"), 0);
                    long lso = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .partitionResult(tp).get(5, TimeUnit.SECONDS).offset();
                    long hw = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                        .partitionResult(tp).get(5, TimeUnit.SECONDS).offset();
                    String k = lso + "/" + hw;
                    if (!k.equals(lastLso)) {
                        lastLso = k;
                        Map<String, Object> s = new LinkedHashMap<>();
                        s.put("t", now());
                        s.put("lso", lso);
                        s.put("hw", hw);
                        synchronized (lsoSamples) {
                            lsoSamples.add(s);
                        }
                    }
                }
                if (sampleGroup) {
                    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(name("billing"))).all().get(5, TimeUnit.SECONDS).get(name("billing"));
                    Map<String, Object> s = new LinkedHashMap<>();
                    s.put("state", d.groupState().toString());
                    s.put("group_epoch", d.groupEpoch().orElse(-1));
                    s.put("target_assignment_epoch", d.targetAssignmentEpoch().orElse(-1));
                    s.put("assignor", d.partitionAssignor());
                    List<Map<String, Object>> ms = new ArrayList<>();
                    for (MemberDescription md : d.members()) {
                        Map<String, Object> mm = new LinkedHashMap<>();
                        mm.put("member", memberOfClientId(md.clientId()));
                        mm.put("member_id", md.consumerId());
                        mm.put("instance_id", md.groupInstanceId().orElse(""));
                        mm.put("member_epoch", md.memberEpoch().orElse(-1));
                        mm.put("assignment", shortNames(md.assignment().topicPartitions()));
                        mm.put("target", md.targetAssignment().map(a -> shortNames(a.topicPartitions())).orElse(List.of()));
                        ms.add(mm);
                    }
                    ms.sort((a, b) -> ((String) a.get("member")).compareTo((String) b.get("member")));
                    s.put("members", ms);
                    String k = s.toString();
                    if (!k.equals(lastGroup)) {
                        lastGroup = k;
                        Map<String, Object> w = new LinkedHashMap<>();
                        w.put("t", now());
                        w.putAll(s);
                        synchronized (groupSnapshots) {
                            groupSnapshots.add(w);
                        }
                    }
                }
                Thread.sleep(Math.max(20, tickMs / 5));
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // the group may not exist yet; sample again
                try {
                    Thread.sleep(Math.max(20, tickMs / 5));
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    String memberOfClientId(String clientId) {
        return clientId.startsWith(tag + ".") ? clientId.substring(tag.length() + 1) : clientId;
    }
}
