package kgviz.realkafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Share groups (KIP-932, Queues for Kafka) on a real broker: four KafkaShareConsumer members, each in
 * its own JVM (a crash is a real {@code Runtime.halt}: the OS closes its sockets), on the two
 * partitions of {@code orders}, with the group's lock duration, delivery count limit and heartbeat
 * set as group configs (KIP-932 "Group configuration", GroupConfig) so that a run takes seconds.
 *
 * <pre>
 *   share-record --out DIR [--tick MS] [--runs N] [--first-run K] [--only REGEX] [--max-seconds S]
 *       starts one broker (the Kafka version of the class path), runs the share scenarios one after
 *       the other, --runs times each, and writes DIR/&lt;scenario&gt;-&lt;run&gt;.json (schema "share-1").
 *   share-agent ...   one member (started by share-record; reports JSON lines on stdout, "stop" on stdin closes it)
 * </pre>
 *
 * <p>Scenarios (twelve records o0.0..o0.5, o1.0..o1.5 produced once the four members have their
 * assignment): share-implicit (share.acknowledgement.mode=implicit), share-explicit (acknowledge
 * ACCEPT per record, commitSync per batch), share-crash (C2 halts holding its first batch),
 * share-poison (explicit; o0.2 released at every delivery until share.delivery.count.limit),
 * share-reject (explicit; o1.4 rejected), share-slow (explicit; C2's application thread sleeps 15 ticks over its first
 * record, its client's background thread heartbeating: kgviz's SlowNext), share-freeze (explicit; C2's whole JVM is
 * stopped with SIGSTOP right after its first poll, its sockets open, no heartbeats: kgviz's Freeze).
 */
public final class ShareRun {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    static final String[] MEMBERS = {"C1", "C2", "C3", "C4"};
    static final int PARTITIONS = 2, RECORDS_PER_PARTITION = 6;
    static final int LOCK_TICKS = 10, DELIVERY_LIMIT = 3, MAX_POLL_RECORDS = 3, PROCESS_TICKS = 1;
    static final int SESSION_TICKS = 6, HEARTBEAT_TICKS = 1, SLOW_TICKS = 15;

    record Scenario(String id, String title, String ack, String crash, String poison, String reject, String slow, String freeze) {}

    static List<Scenario> scenarios() {
        return List.of(
            new Scenario("share-implicit", "4 members on 2 partitions, implicit acknowledgement", "implicit", null, null, null, null, null),
            new Scenario("share-explicit", "4 members on 2 partitions, explicit acknowledgement (ACCEPT, commitSync)", "explicit", null, null, null, null, null),
            new Scenario("share-crash", "C2 crashes holding its first batch: redelivered at once (its connection closed)", "implicit", "C2", null, null, null, null),
            new Scenario("share-slow", "C2 takes 15 ticks over its first record: the lock (10) lapses and its batch goes to another member", "explicit", null, null, null, "C2", null),
            new Scenario("share-poison", "o0.2 released at every delivery until the delivery count limit archives it", "explicit", null, "o0.2", null, null, null),
            new Scenario("share-reject", "o1.4 rejected at its first delivery: archived at once", "explicit", null, null, "o1.4", null, null),
            new Scenario("share-freeze", "C2's process stops (SIGSTOP) holding its first batch, its connection open: the records come back at the lock (10)", "explicit", null, null, null, null, "C2"));
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("share-agent")) {
            agent(args);
            return;
        }
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        if (args.length == 0 || !args[0].equals("share-record")) {
            System.err.println("usage: share-record --out DIR [--tick MS] [--runs N] [--first-run K] [--only REGEX] [--max-seconds S]");
            System.exit(2);
        }
        System.exit(record(o));
    }

    // ---------------------------------------------------------------- the recorder

    static int record(Map<String, String> o) throws Exception {
        long tick = Long.parseLong(o.getOrDefault("tick", "500"));
        Path out = Files.createDirectories(Path.of(o.getOrDefault("out", "build/realkafka-share")));
        int runs = Integer.parseInt(o.getOrDefault("runs", "3"));
        int firstRun = Integer.parseInt(o.getOrDefault("first-run", "1"));
        long maxSeconds = Long.parseLong(o.getOrDefault("max-seconds", "900"));
        Pattern only = Pattern.compile(o.getOrDefault("only", ".*"));
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(maxSeconds * 1000);
                System.err.println("realkafka share: --max-seconds " + maxSeconds + " reached; stopping everything");
                System.exit(3);
            } catch (InterruptedException e) {
                // done in time
            }
        }, "share-deadline");
        deadline.setDaemon(true);
        deadline.start();
        long t0 = System.currentTimeMillis();
        int failures = 0;
        try (Broker b = Broker.start("share", tick, 0, 0, (short) 2, maxSeconds + 60, 180_000)) {
            double brokerStart = (System.currentTimeMillis() - t0) / 1000.0;
            Properties ap = new Properties();
            ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap);
            try (Admin admin = Admin.create(ap)) {
                FeatureMetadata f = admin.describeFeatures().featureMetadata().get(10, TimeUnit.SECONDS);
                var sv = f.finalizedFeatures().get("share.version");
                short shareVersion = sv == null ? 0 : sv.maxVersionLevel();
                System.out.printf("realkafka share: Kafka %s broker ready in %.1f s (share.version %d, tick %d ms)%n",
                    kafkaVersion(), brokerStart, shareVersion, tick);
                for (Scenario s : scenarios()) {
                    if (!only.matcher(s.id()).find()) continue;
                    for (int run = firstRun; run < firstRun + runs; run++) {
                        String retried = null;
                        Map<String, Object> rec = null;
                        for (int attempt = 1; attempt <= 2 && rec == null; attempt++) {
                            long rs = System.currentTimeMillis();
                            try {
                                rec = new ShareScenarioRun(s, run, tick, b, admin, shareVersion, brokerStart).run();
                                if (retried != null) rec.put("retried_after", retried);
                                System.out.printf("realkafka share: %s run %d done in %.1f s%n", s.id(), run, (System.currentTimeMillis() - rs) / 1000.0);
                            } catch (Exception e) {
                                retried = "attempt " + attempt + ": " + e;
                                System.out.printf("realkafka share: %s run %d attempt %d failed after %.1f s: %s%n", s.id(), run, attempt,
                                    (System.currentTimeMillis() - rs) / 1000.0, e);
                            }
                        }
                        if (rec == null) {
                            failures++;
                            continue;
                        }
                        Files.writeString(out.resolve(s.id() + "-" + run + ".json"), JSON.writeValueAsString(rec) + "\n");
                    }
                }
            }
        }
        System.out.printf("realkafka share: done in %.1f s, %d failed run(s)%n", (System.currentTimeMillis() - t0) / 1000.0, failures);
        return failures == 0 ? 0 : 1;
    }

    /** One run of one scenario: its own topic and group (prefixed by a tag the recording does not show). */
    static final class ShareScenarioRun {
        final Scenario s;
        final int run;
        final long tick;
        final Broker broker;
        final Admin admin;
        final short shareVersion;
        final double brokerStart;
        final String tag = "s" + UUID.randomUUID().toString().substring(0, 8);
        final String topic = tag + "-orders", group = tag + "-billing";
        long t0;
        final List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
        final List<Map<String, Object>> steps = new CopyOnWriteArrayList<>();
        final List<Map<String, Object>> snapshots = new ArrayList<>();
        final Map<String, Process> procs = new ConcurrentHashMap<>();
        final Map<String, OutputStream> stdins = new ConcurrentHashMap<>();

        ShareScenarioRun(Scenario s, int run, long tick, Broker broker, Admin admin, short shareVersion, double brokerStart) {
            this.s = s;
            this.run = run;
            this.tick = tick;
            this.broker = broker;
            this.admin = admin;
            this.shareVersion = shareVersion;
            this.brokerStart = brokerStart;
        }

        double ticks(long ms) {
            return Math.round((ms - t0) * 10.0 / tick) / 10.0;
        }

        void step(String kind, Map<String, Object> extra) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("t", ticks(System.currentTimeMillis()));
            m.put("kind", kind);
            if (extra != null) m.putAll(extra);
            steps.add(m);
        }

        Map<String, Object> run() throws Exception {
            t0 = System.currentTimeMillis();
            try {
                return runInner();
            } finally {
                for (var e : procs.entrySet()) {
                    Process p = e.getValue();
                    if (p.isAlive()) {
                        p.destroyForcibly();
                        p.waitFor(5, TimeUnit.SECONDS);
                    }
                }
            }
        }

        Map<String, Object> runInner() throws Exception {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // the group's configs (GroupConfig; the broker's group.share.min.* allow these short values)
            Map<String, String> gc = new LinkedHashMap<>();
            gc.put("share.auto.offset.reset", "earliest");
            gc.put("share.record.lock.duration.ms", String.valueOf(LOCK_TICKS * tick));
            gc.put("share.delivery.count.limit", String.valueOf(DELIVERY_LIMIT));
            gc.put("share.session.timeout.ms", String.valueOf(SESSION_TICKS * tick));
            gc.put("share.heartbeat.interval.ms", String.valueOf(HEARTBEAT_TICKS * tick));
            List<AlterConfigOp> ops = new ArrayList<>();
            gc.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all().get(30, TimeUnit.SECONDS);
            // the member JVMs start first (seconds on a busy machine) and build their consumers; then, at
            // t0, all four subscribe and poll at once
            for (String m : MEMBERS) startAgent(m);
            long readyBy = System.currentTimeMillis() + 240_000;
            while (System.currentTimeMillis() < readyBy && events.stream().filter(e -> "ready".equals(e.get("kind"))).count() < MEMBERS.length) {
                Thread.sleep(50);
            }
            if (events.stream().filter(e -> "ready".equals(e.get("kind"))).count() < MEMBERS.length) {
                throw new IllegalStateException("the member JVMs were not ready within 240 s");
            }
            events.clear();
            t0 = System.currentTimeMillis();
            for (String m : MEMBERS) send(m, "go");
            step("add", Map.of("members", List.of(MEMBERS)));
            // the four members have their assignment: then the records
            long until = System.currentTimeMillis() + 300 * tick; // member JVMs on a busy machine: tens of seconds
            Map<String, Object> snap = null, last = null;
            Throwable lastError = null;
            while (System.currentTimeMillis() < until) {
                try {
                    snap = snapshot();
                } catch (java.util.concurrent.ExecutionException e) {
                    snap = null; // GroupIdNotFoundException until the first member's heartbeat
                    lastError = e.getCause();
                }
                if (snap != null) last = snap;
                if (snap != null && stable(snap)) break;
                snap = null;
                Thread.sleep(tick / 5);
            }
            if (snap == null) throw new IllegalStateException("the four members got no stable assignment within 300 ticks: " + last + "; " + lastError + "; " + events);
            snapshots.add(snap);
            step("stable", Map.of("group_epoch", snap.get("group_epoch")));
            produce();
            step("produced", Map.of("records", PARTITIONS * RECORDS_PER_PARTITION));
            // every record done (accepted, rejected, or released at the limit), then a quiet lock duration and two ticks
            until = System.currentTimeMillis() + 240 * tick;
            while (System.currentTimeMillis() < until && !allDone()) Thread.sleep(tick / 10);
            if (!allDone()) throw new IllegalStateException("not every record done within 240 ticks: " + doneRecords());
            step("all-done", null);
            Thread.sleep((LOCK_TICKS + 2) * tick);
            step("quiet", null);
            snapshots.add(snapshot());
            Map<String, Object> offsetsBeforeClose = startOffsets();
            // a frozen (SIGSTOPped) member reads no "stop": SIGKILL reaches it
            if (s.freeze() != null && procs.get(s.freeze()).isAlive()) {
                procs.get(s.freeze()).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (String m : MEMBERS) if (!m.equals(s.freeze())) send(m, "stop");
            for (String m : MEMBERS) procs.get(m).waitFor(30, TimeUnit.SECONDS);
            step("closed", null);
            Thread.sleep(tick);
            Map<String, Object> rec = new LinkedHashMap<>();
            rec.put("schema", "share-1");
            rec.put("scenario", s.id());
            rec.put("run", run);
            rec.put("title", s.title());
            rec.put("kafka_version", kafkaVersion());
            rec.put("share_version", shareVersion);
            rec.put("tick_ms", tick);
            rec.put("broker_start_seconds", brokerStart);
            Map<String, Object> world = new LinkedHashMap<>();
            world.put("partitions", PARTITIONS);
            world.put("records_per_partition", RECORDS_PER_PARTITION);
            world.put("members", List.of(MEMBERS));
            world.put("acknowledgement", s.ack());
            world.put("lock_ticks", LOCK_TICKS);
            world.put("delivery_count_limit", DELIVERY_LIMIT);
            world.put("max_poll_records", MAX_POLL_RECORDS);
            world.put("process_ticks", PROCESS_TICKS);
            world.put("session_timeout_ticks", SESSION_TICKS);
            world.put("heartbeat_ticks", HEARTBEAT_TICKS);
            world.put("auto_offset_reset", "earliest");
            world.put("acquire_mode", "record_limit");
            if (s.crash() != null) world.put("crash", s.crash());
            if (s.poison() != null) world.put("release", s.poison());
            if (s.reject() != null) world.put("reject", s.reject());
            if (s.freeze() != null) world.put("freeze", s.freeze());
            if (s.slow() != null) {
                world.put("slow", s.slow());
                world.put("slow_ticks", SLOW_TICKS);
            }
            world.put("group_configs", gc);
            rec.put("world", world);
            rec.put("steps", steps);
            List<Map<String, Object>> ev = new ArrayList<>(events);
            ev.sort((a, b) -> Double.compare((Double) a.get("t"), (Double) b.get("t")));
            rec.put("events", ev);
            rec.put("group_snapshots", snapshots);
            // the share-partition start offsets once every record is done (before the members close) and at the end
            rec.put("start_offsets_quiet", offsetsBeforeClose);
            rec.put("start_offsets", startOffsets());
            return rec;
        }

        boolean stable(Map<String, Object> snap) {
            @SuppressWarnings("unchecked") List<Map<String, Object>> ms = (List<Map<String, Object>>) snap.get("members");
            if (ms.size() != MEMBERS.length) return false;
            if (!snap.get("group_epoch").equals(snap.get("assignment_epoch"))) return false;
            for (Map<String, Object> m : ms) {
                if (((List<?>) m.get("partitions")).isEmpty()) return false;
                if (!m.get("member_epoch").equals(snap.get("group_epoch"))) return false;
            }
            return true;
        }

        Map<String, Object> snapshot() throws Exception {
            ShareGroupDescription d = admin.describeShareGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("t", ticks(System.currentTimeMillis()));
            m.put("state", d.groupState().toString());
            m.put("group_epoch", d.groupEpoch());
            m.put("assignment_epoch", d.targetAssignmentEpoch());
            List<Map<String, Object>> ms = new ArrayList<>();
            for (ShareMemberDescription md : d.members()) {
                Map<String, Object> mm = new LinkedHashMap<>();
                mm.put("name", md.clientId());
                mm.put("member_epoch", md.memberEpoch());
                List<String> ps = new ArrayList<>();
                for (TopicPartition tp : md.assignment().topicPartitions()) ps.add("o" + tp.partition());
                ps.sort(null);
                mm.put("partitions", ps);
                ms.add(mm);
            }
            ms.sort((a, b) -> ((String) a.get("name")).compareTo((String) b.get("name")));
            m.put("members", ms);
            return m;
        }

        /** The share-partition start offset of each partition (Admin.listShareGroupOffsets). */
        Map<String, Object> startOffsets() throws Exception {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) tps.add(new TopicPartition(topic, p));
            var res = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec().topicPartitions(tps))).all().get(10, TimeUnit.SECONDS);
            Map<String, Object> out = new TreeMap<>();
            var byTp = res.get(group);
            if (byTp == null) return out;
            for (var e : byTp.entrySet()) {
                Object v = e.getValue();
                Object off = null;
                // 4.4's SharePartitionOffsetInfo.startOffset(); 4.1's OffsetAndMetadata.offset()
                for (String meth : new String[] {"startOffset", "offset"}) {
                    try {
                        off = v.getClass().getMethod(meth).invoke(v);
                        break;
                    } catch (NoSuchMethodException ignored) {
                        // try the next
                    }
                }
                out.put("o" + e.getKey().partition(), off);
            }
            return out;
        }

        void produce() throws Exception {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
            try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
                // one record per batch, so that acquisition is per record whatever the acquire mode
                for (int off = 0; off < RECORDS_PER_PARTITION; off++) {
                    for (int part = 0; part < PARTITIONS; part++) {
                        prod.send(new ProducerRecord<>(topic, part, null, "o" + part + "." + off)).get(10, TimeUnit.SECONDS);
                    }
                }
            }
        }

        /** Records done: accepted (explicitly or implicitly), rejected, or released at the delivery count limit. */
        Map<String, String> doneRecords() {
            Map<String, String> done = new TreeMap<>();
            for (Map<String, Object> e : events) {
                if (!"processed".equals(e.get("kind"))) continue;
                String ack = (String) e.get("ack");
                int dc = ((Number) e.get("delivery_count")).intValue();
                if (!ack.equals("RELEASE") || dc >= DELIVERY_LIMIT) done.put((String) e.get("record"), ack);
            }
            return done;
        }

        boolean allDone() {
            return doneRecords().size() == PARTITIONS * RECORDS_PER_PARTITION;
        }

        void send(String member, String line) throws IOException {
            if (!procs.get(member).isAlive()) return;
            stdins.get(member).write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdins.get(member).flush();
        }

        void startAgent(String name) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(Broker.javaBin(), "-Xms64m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.awt.headless=true", "-cp", System.getProperty("java.class.path"), ShareRun.class.getName(), "share-agent",
                broker.bootstrap, group, topic, name, String.valueOf(tick), s.ack(),
                String.valueOf(name.equals(s.crash())), s.poison() == null ? "-" : s.poison(), s.reject() == null ? "-" : s.reject(),
                String.valueOf(name.equals(s.slow())), String.valueOf(name.equals(s.freeze()))));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            String logs = System.getProperty("kgviz.share.logs");
            pb.redirectError(logs == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(Path.of(logs, tag + "-" + name + ".log").toFile()));
            Process p = pb.start();
            procs.put(name, p);
            stdins.put(name, p.getOutputStream());
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (!line.startsWith("{")) continue;
                        @SuppressWarnings("unchecked") Map<String, Object> m = JSON.readValue(line, LinkedHashMap.class);
                        long ms = ((Number) m.remove("ms")).longValue();
                        Map<String, Object> e = new LinkedHashMap<>();
                        e.put("t", ticks(ms));
                        e.put("member", name);
                        e.putAll(m);
                        events.add(e);
                    }
                } catch (IOException e) {
                    // the process is gone
                }
            }, "share-reader-" + name);
            reader.setDaemon(true);
            reader.start();
        }
    }

    // ---------------------------------------------------------------- one member (its own JVM)

    static PrintStream out;

    static synchronized void report(Map<String, Object> m) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("ms", System.currentTimeMillis());
        e.putAll(m);
        try {
            out.println(new ObjectMapper().writeValueAsString(e));
            out.flush();
        } catch (IOException ex) {
            throw new RuntimeException(ex);
        }
    }

    static void agent(String[] a) throws Exception {
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        String bootstrap = a[1], group = a[2], topic = a[3], name = a[4];
        long tick = Long.parseLong(a[5]);
        String ack = a[6];
        boolean crash = Boolean.parseBoolean(a[7]);
        String release = a[8], reject = a[9];
        boolean slowFirst = Boolean.parseBoolean(a[10]);
        boolean freeze = Boolean.parseBoolean(a[11]);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, String.valueOf(MAX_POLL_RECORDS));
        p.put("share.acknowledgement.mode", ack);
        // 4.4: at most max.poll.records records per fetch (the default batch_optimized may acquire whole batches)
        p.put("share.acquire.mode", "record_limit");
        stopping = false;
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Thread stdin = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.equals("go")) go.countDown();
                    else stopping = true;
                }
            } catch (IOException e) {
                // EOF
            }
            stopping = true;
            go.countDown();
        }, "agent-stdin");
        stdin.setDaemon(true);
        stdin.start();
        try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
            report(Map.of("kind", "ready"));
            go.await();
            c.subscribe(List.of(topic));
            report(Map.of("kind", "subscribed"));
            while (!stopping) {
                ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(Math.max(20, tick / 5)));
                if (recs.isEmpty()) continue;
                List<Map<String, Object>> got = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (ConsumerRecord<String, String> r : recs) {
                    Map<String, Object> g = new LinkedHashMap<>();
                    g.put("record", r.value());
                    g.put("partition", r.partition());
                    g.put("offset", r.offset());
                    g.put("delivery_count", r.deliveryCount().map(Short::intValue).orElse(-1));
                    got.add(g);
                    names.add(r.value());
                }
                report(Map.of("kind", "polled", "records", got));
                if (crash) {
                    report(Map.of("kind", "crash", "holding", names));
                    Runtime.getRuntime().halt(137);
                }
                if (freeze) {
                    // the whole JVM stops (SIGSTOP from a child process): no heartbeat, no fetch, sockets open
                    report(Map.of("kind", "freeze", "holding", names));
                    new ProcessBuilder("kill", "-STOP", String.valueOf(ProcessHandle.current().pid())).start().waitFor();
                    Thread.sleep(Long.MAX_VALUE);
                }
                for (ConsumerRecord<String, String> r : recs) {
                    if (slowFirst) {
                        // stuck in one record past the lock: the process lives, its heartbeats go on
                        report(Map.of("kind", "slow-start", "record", r.value()));
                        Thread.sleep(SLOW_TICKS * tick);
                        slowFirst = false;
                    } else {
                        Thread.sleep(PROCESS_TICKS * tick);
                    }
                    String how;
                    int dc = r.deliveryCount().map(Short::intValue).orElse(-1);
                    if (r.value().equals(release)) {
                        how = "RELEASE";
                    } else if (r.value().equals(reject)) {
                        how = "REJECT";
                    } else {
                        how = ack.equals("explicit") ? "ACCEPT" : "implicit";
                    }
                    if (ack.equals("explicit")) c.acknowledge(r, AcknowledgeType.valueOf(how));
                    report(Map.of("kind", "processed", "record", r.value(), "delivery_count", dc, "ack", how));
                }
                if (ack.equals("explicit")) {
                    Map<String, Object> errs = new TreeMap<>();
                    for (var e : c.commitSync(Duration.ofMillis(10 * tick)).entrySet()) {
                        Optional<?> ex = e.getValue();
                        if (ex.isPresent()) errs.put("o" + e.getKey().partition(), ex.get().getClass().getSimpleName());
                    }
                    report(Map.of("kind", "committed", "errors", errs));
                }
            }
            report(Map.of("kind", "close-start"));
        }
        report(Map.of("kind", "closed"));
        System.exit(0);
    }

    static volatile boolean stopping;

    /** kafka-clients' version (its kafka/kafka-version.properties; AppInfoParser moved package in 4.4). */
    static String kafkaVersion() throws IOException {
        try (var in = ShareRun.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
            Properties p = new Properties();
            if (in != null) p.load(in);
            return p.getProperty("version", "unknown");
        }
    }
}
