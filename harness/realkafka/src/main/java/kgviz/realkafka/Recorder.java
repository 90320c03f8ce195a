package kgviz.realkafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Collects what a student looks at at the end of a {@link Run} and writes it as one JSON file
 * (schema in kgviz's realkafka/README.md): the members' own reports, the broker's request and
 * coordinator logs for the run, invoices-0 as the log holds it (batch by batch: producer id and
 * epoch, transactional, control markers) and as a read_committed and a read_uncommitted reader
 * see it, and the committed offsets. Producer ids are renumbered in order of appearance (the
 * broker hands them out across concurrent runs); times are ticks from the run's start.
 */
final class Recorder {
    static final ObjectMapper M = new ObjectMapper();
    static final int SCHEMA = 1;

    static Map<String, Object> collect(Run r, BrokerLogs logs) throws Exception {
        long end = System.currentTimeMillis();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("schema", SCHEMA);
        out.put("scenario", r.scenario);
        out.put("run", r.runIndex);
        out.put("demo", r.demo);
        out.put("title", r.title);
        out.put("kafka_version", kafkaVersion());
        out.put("transaction_version", (int) r.broker.transactionVersion);
        out.put("tick_ms", r.tickMs);
        out.put("duration_ticks", r.tick(end));
        out.put("failure", r.failure == null ? "" : r.failure);
        out.put("world", r.world);
        Map<String, Object> topicIds = new TreeMap<>();
        r.topicIds.forEach((t, id) -> topicIds.put(t, id.toString()));
        out.put("topic_ids", topicIds); // KIP-848 heartbeats name topics by id

        // members and their events
        Map<Long, Integer> pidIndex = new HashMap<>();
        List<Map<String, Object>> members = new ArrayList<>();
        List<Map<String, Object>> events = new ArrayList<>();
        Map<String, String[]> memberIdOwner = new HashMap<>(); // member id -> {name, process}
        for (Run.Member m : r.processes) {
            m.refresh();
            Map<String, Object> mm = new LinkedHashMap<>();
            mm.put("name", m.name);
            mm.put("process", m.process);
            mm.put("client_id", m.cfg.get("clientId"));
            mm.put("instance_id", m.cfg.getOrDefault("instanceId", ""));
            mm.put("started", r.tick(m.startedAt));
            mm.put("end_state", m.state);
            Map<String, Object> cfg = new TreeMap<>(m.cfg);
            for (String k : List.of("op", "bootstrap", "tickMs", "clientId", "prefix", "group", "topics", "invoices", "name", "transactionalId")) cfg.remove(k);
            mm.put("config", cfg);
            List<String> ids = new ArrayList<>();
            int seq = 0;
            for (JsonNode e : m.h.events()) {
                String mid = e.path("member_id").asText("");
                if (!mid.isEmpty() && !ids.contains(mid)) {
                    ids.add(mid);
                    memberIdOwner.put(mid, new String[] {m.name, String.valueOf(m.process)});
                }
                Map<String, Object> ev = new LinkedHashMap<>();
                ev.put("t", e.path("t").asLong());
                ev.put("member", m.name);
                ev.put("process", m.process);
                ev.put("seq", seq++);
                e.fields().forEachRemaining(f -> {
                    if (!f.getKey().equals("t")) ev.put(f.getKey().equals("ev") ? "type" : f.getKey(), M.convertValue(f.getValue(), Object.class));
                });
                events.add(ev);
            }
            mm.put("member_ids", ids);
            members.add(mm);
        }
        events.sort((a, b) -> {
            int c = Long.compare((Long) a.get("t"), (Long) b.get("t"));
            if (c != 0) return c;
            c = ((String) a.get("member")).compareTo((String) b.get("member"));
            if (c != 0) return c;
            c = Integer.compare((Integer) a.get("process"), (Integer) b.get("process"));
            return c != 0 ? c : Integer.compare((Integer) a.get("seq"), (Integer) b.get("seq"));
        });
        for (Map<String, Object> e : events) {
            e.put("t", r.tick((Long) e.remove("t")));
            e.remove("seq");
            Map<String, Object> ordered = new LinkedHashMap<>();
            ordered.put("tick", e.remove("t"));
            ordered.putAll(e);
            e.clear();
            e.putAll(ordered);
        }
        List<Map<String, Object>> steps = new ArrayList<>();
        synchronized (r.steps) {
            for (Map<String, Object> s : r.steps) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("tick", r.tick((Long) s.get("t")));
                s.forEach((k, v) -> {
                    if (!k.equals("t")) c.put(k, v);
                });
                steps.add(c);
            }
        }

        // the broker's view
        logs.refresh();
        Set<Long> pids = new HashSet<>();
        List<ObjectNode> reqs = logs.requests(r.tag, r.t0, end + 1000, Set.of());
        for (ObjectNode o : reqs) {
            if (o.path("api").asText().equals("InitProducerId") && o.path("response").has("producerId")) {
                long pid = o.path("response").path("producerId").asLong();
                if (pid >= 0) pids.add(pid);
            }
        }
        // producer ids are numbered in the order their InitProducerId answers came, then as the log shows them
        for (ObjectNode o : reqs) {
            if (o.path("api").asText().equals("InitProducerId") && o.path("response").path("producerId").asLong(-1) >= 0) {
                pidOf(pidIndex, o.path("response").path("producerId").asLong());
            }
        }
        List<Map<String, Object>> invoiceLog = readInvoices(r, pidIndex, pids);
        reqs = logs.requests(r.tag, r.t0, end + 1000, pids);
        List<Map<String, Object>> requests = new ArrayList<>();
        Map<String, Long> connFirstSeen = new HashMap<>();
        for (ObjectNode o : reqs) {
            // a request is logged when answered; its connection was opened before
            connFirstSeen.putIfAbsent(o.path("connection").asText(""), o.path("t").asLong() - (long) o.path("total_ms").asDouble(0));
        }
        for (ObjectNode o : reqs) {
            if (o.path("api").asText().equals("WriteTxnMarkers")) {
                o = o.deepCopy(); // shared with the other runs' collection
                onlyOwnMarkers(o, pids);
            }
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("tick", r.tick(o.path("t").asLong()));
            String cid = o.path("client_id").asText();
            String member = cid.startsWith(r.tag + ".") ? cid.substring(r.tag.length() + 1) : "B1";
            q.put("member", member);
            q.put("process", processOf(r, member, o, memberIdOwner, connFirstSeen));
            q.put("api", o.path("api").asText());
            q.put("version", o.path("version").asInt());
            q.put("error", o.path("error").asText());
            q.put("errors", M.convertValue(o.path("errors"), Object.class));
            q.put("request", M.convertValue(renumber(untag(o.path("request"), r.tag), pidIndex), Object.class));
            q.put("response", M.convertValue(renumber(untag(o.path("response"), r.tag), pidIndex), Object.class));
            requests.add(q);
        }
        List<Map<String, Object>> coord = new ArrayList<>();
        for (String[] l : logs.coordinatorLines(r.tag, r.t0, end + 1000)) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("tick", r.tick(Long.parseLong(l[0])));
            c.put("logger", l[1]);
            c.put("message", l[2].replace(r.tag + ".", ""));
            coord.add(c);
        }

        out.put("members", members);
        out.put("steps", steps);
        out.put("events", events);
        out.put("requests", requests);
        out.put("request_counts", logs.counts(r.tag));
        out.put("coordinator_log", coord);
        Map<String, Object> inv = new LinkedHashMap<>();
        inv.put("log", invoiceLog);
        inv.put("read_committed", readAll(r, "read_committed"));
        inv.put("read_uncommitted", readAll(r, "read_uncommitted"));
        out.put("invoices", inv);
        out.put("committed", committed(r));
        List<Map<String, Object>> lso = new ArrayList<>();
        synchronized (r.lsoSamples) {
            for (Map<String, Object> s : r.lsoSamples) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("tick", r.tick((Long) s.get("t")));
                c.put("lso", s.get("lso"));
                c.put("hw", s.get("hw"));
                lso.add(c);
            }
        }
        out.put("lso_samples", lso);
        List<Map<String, Object>> gs = new ArrayList<>();
        synchronized (r.groupSnapshots) {
            for (Map<String, Object> s : r.groupSnapshots) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("tick", r.tick((Long) s.get("t")));
                s.forEach((k, v) -> {
                    if (!k.equals("t")) c.put(k, v);
                });
                gs.add(c);
            }
        }
        out.put("group_snapshots", gs);
        if (r.proxy != null) {
            List<Map<String, Object>> lost = new ArrayList<>();
            synchronized (r.proxy.dropped) {
                for (String[] d : r.proxy.dropped) {
                    if (!d[1].startsWith(r.tag + ".")) continue;
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("tick", r.tick(Long.parseLong(d[0])));
                    m.put("member", d[1].substring(r.tag.length() + 1));
                    m.put("record", d[2]);
                    lost.add(m);
                }
            }
            out.put("lost_responses", lost);
        }
        // the run's tag ("s07.") is how concurrent runs share a broker: it is not part of what a student sees
        @SuppressWarnings("unchecked")
        Map<String, Object> untagged = M.convertValue(untag(M.valueToTree(out), r.tag), LinkedHashMap.class);
        return untagged;
    }

    /**
     * Which process of a member sent a request (a restarted member's old and new processes share
     * a client.id): the member id the request carries, else the process that owned the request's
     * connection, i.e. the newest process of that member started when the connection first showed.
     */
    private static int processOf(Run r, String member, ObjectNode o, Map<String, String[]> owners, Map<String, Long> connFirstSeen) {
        String mid = o.path("request").path("memberId").asText("");
        if (mid.isEmpty()) mid = o.path("response").path("memberId").asText("");
        String[] ow = owners.get(mid);
        if (ow != null && ow[0].equals(member)) return Integer.parseInt(ow[1]);
        long t = connFirstSeen.getOrDefault(o.path("connection").asText(""), o.path("t").asLong());
        int best = 0;
        for (Run.Member m : r.processes) {
            if (m.name.equals(member) && m.startedAt <= t) best = m.process;
        }
        return best;
    }

    /** The broker sends the markers of several transactions in one request: keep this run's. */
    private static void onlyOwnMarkers(ObjectNode o, Set<Long> pids) {
        for (String side : List.of("request", "response")) {
            JsonNode markers = o.path(side).path("markers");
            if (!markers.isArray()) continue;
            var kept = M.createArrayNode();
            for (JsonNode mk : markers) if (pids.contains(mk.path("producerId").asLong())) kept.add(mk);
            ((ObjectNode) o.path(side)).set("markers", kept);
        }
    }

    /** Removes the run's tag from every string (topic names, group and transactional ids). */
    static JsonNode untag(JsonNode n, String tag) {
        String s = n.toString().replace(tag + ".", "");
        try {
            return M.readTree(s);
        } catch (Exception e) {
            return n;
        }
    }

    /** Producer ids renumbered in order of appearance: 1001, 1002, ... (kgviz's first PID is 1001). */
    static JsonNode renumber(JsonNode n, Map<Long, Integer> idx) {
        if (n.isObject()) {
            ObjectNode o = (ObjectNode) n;
            var it = o.fields();
            List<String> keys = new ArrayList<>();
            while (it.hasNext()) keys.add(it.next().getKey());
            for (String k : keys) {
                JsonNode v = o.get(k);
                if (k.equals("producerId") && v.isNumber() && v.asLong() >= 0) o.put(k, pidOf(idx, v.asLong()));
                else renumber(v, idx);
            }
        } else if (n.isArray()) {
            for (JsonNode c : n) renumber(c, idx);
        }
        return n;
    }

    /** The clients' version (AppInfoParser: in common.utils up to 4.3, common.utils.internals in 4.4). */
    static String kafkaVersion() {
        for (String c : new String[] {"org.apache.kafka.common.utils.internals.AppInfoParser", "org.apache.kafka.common.utils.AppInfoParser"}) {
            try {
                return (String) Class.forName(c).getMethod("getVersion").invoke(null);
            } catch (ReflectiveOperationException e) {
                // the other version's class
            }
        }
        throw new IllegalStateException("no AppInfoParser in this Kafka's clients");
    }

    static int pidOf(Map<Long, Integer> idx, long pid) {
        synchronized (idx) {
            return idx.computeIfAbsent(pid, k -> 1001 + idx.size());
        }
    }

    /** invoices-0 batch by batch from the broker's segment files. */
    private static List<Map<String, Object>> readInvoices(Run r, Map<Long, Integer> pidIndex, Set<Long> pids) throws Exception {
        Path dir = r.broker.logDir().resolve(r.name("invoices") + "-0");
        List<Map<String, Object>> out = new ArrayList<>();
        List<Path> segs = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.filter(p -> p.toString().endsWith(".log")).sorted().forEach(segs::add);
        }
        List<Map<String, Object>> txnRecords = new ArrayList<>();
        for (Path seg : segs) {
            try (SegmentReader fr = SegmentReader.open(new File(seg.toString()))) {
                for (SegmentReader.Batch b : fr.batches()) {
                    long pid = b.producerId();
                    if (pid >= 0) pids.add(pid);
                    for (SegmentReader.Rec rec : b.records()) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("offset", rec.offset());
                        if (b.isControlBatch()) {
                            m.put("record", "");
                            m.put("control", rec.controlType());
                        } else {
                            m.put("record", rec.value() == null ? "" : Utils.utf8(rec.value()));
                            m.put("control", "");
                        }
                        m.put("pid", pid < 0 ? -1 : pidOf(pidIndex, pid));
                        m.put("epoch", (int) b.producerEpoch());
                        m.put("sequence", b.baseSequence() < 0 ? -1 : b.baseSequence() + (int) (rec.offset() - b.baseOffset()));
                        m.put("transactional", b.isTransactional());
                        m.put("outcome", b.isTransactional() && !b.isControlBatch() ? "open" : "");
                        out.add(m);
                        if (b.isTransactional()) txnRecords.add(m);
                    }
                }
            }
        }
        // a transactional record is committed or aborted by its producer's next marker
        for (int i = 0; i < txnRecords.size(); i++) {
            Map<String, Object> m = txnRecords.get(i);
            if (!((String) m.get("control")).isEmpty()) continue;
            for (int j = i + 1; j < txnRecords.size(); j++) {
                Map<String, Object> c = txnRecords.get(j);
                if (!((String) c.get("control")).isEmpty() && c.get("pid").equals(m.get("pid"))) {
                    m.put("outcome", c.get("control").equals("COMMIT") ? "committed" : "aborted");
                    break;
                }
            }
        }
        return out;
    }

    /** What an audit reader of invoices-0 sees with this isolation.level: offsets and values. */
    private static List<Map<String, Object>> readAll(Run r, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, r.broker.bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, r.name("audit-" + isolation));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<Map<String, Object>> out = new ArrayList<>();
        TopicPartition tp = new TopicPartition(r.name("invoices"), 0);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long endOffset = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.currentTimeMillis() + 30_000;
            while (c.position(tp) < endOffset && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> rec : c.poll(Duration.ofMillis(200))) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("offset", rec.offset());
                    m.put("record", rec.value());
                    out.add(m);
                }
            }
        }
        return out;
    }

    private static Map<String, Object> committed(Run r) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> c = r.admin.listConsumerGroupOffsets(r.name("billing")).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        Map<String, Object> out = new TreeMap<>();
        c.forEach((tp, om) -> {
            if (om != null) out.put(r.shortName(tp.topic(), tp.partition()), om.offset());
        });
        return out;
    }

    static void write(Map<String, Object> rec, Path file) throws Exception {
        Files.createDirectories(file.getParent());
        String s = M.writerWithDefaultPrettyPrinter().writeValueAsString(rec);
        Files.writeString(file, s + "\n", StandardCharsets.UTF_8);
    }
}
