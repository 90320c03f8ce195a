package kgviz.realkafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads the broker's request log (kafka.request.logger at DEBUG: one "Completed request:{json}"
 * per request, with the request and its response) and the coordinators' INFO log, as they grow,
 * keeping what the scenario runs need: requests of clients whose client.id carries a run's tag,
 * and the transaction markers the broker sends itself. Fetch, Metadata, ApiVersions and NONE
 * heartbeats are only counted.
 */
final class BrokerLogs {
    private static final ObjectMapper M = new ObjectMapper();
    private final Path requestLog, coordinatorLog;
    private long reqPos, coordPos;
    private final List<ObjectNode> requests = new ArrayList<>();
    private final List<String[]> coordinator = new ArrayList<>(); // {epoch ms, logger, message}
    private final Map<String, Integer> counts = new LinkedHashMap<>(); // clientId + " " + api -> n

    BrokerLogs(Path requestLog, Path coordinatorLog) {
        this.requestLog = requestLog;
        this.coordinatorLog = coordinatorLog;
    }

    synchronized void refresh() throws IOException {
        reqPos = readLines(requestLog, reqPos, this::onRequestLine);
        coordPos = readLines(coordinatorLog, coordPos, this::onCoordinatorLine);
    }

    private interface LineSink {
        void line(String l);
    }

    private static long readLines(Path f, long pos, LineSink sink) throws IOException {
        if (!f.toFile().exists()) return pos;
        try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
            long len = r.length();
            if (len <= pos) return pos;
            r.seek(pos);
            byte[] buf = new byte[(int) (len - pos)];
            r.readFully(buf);
            int last = -1;
            for (int i = buf.length - 1; i >= 0; i--) {
                if (buf[i] == '\n') {
                    last = i;
                    break;
                }
            }
            if (last < 0) return pos;
            String s = new String(buf, 0, last, StandardCharsets.UTF_8);
            for (String l : s.split("\n")) sink.line(l);
            return pos + last + 1;
        }
    }

    private void onCoordinatorLine(String l) {
        int sp = l.indexOf(' ');
        int sp2 = sp < 0 ? -1 : l.indexOf(' ', sp + 1);
        if (sp2 < 0) return;
        coordinator.add(new String[] {l.substring(0, sp), l.substring(sp + 1, sp2), l.substring(sp2 + 1)});
    }

    private void onRequestLine(String l) {
        int sp = l.indexOf(' ');
        int js = l.indexOf('{');
        if (sp < 0 || js < 0 || !l.startsWith("Completed request:", sp + 1)) return;
        // cheap filters before parsing: the controller's own traffic and fetches
        if (l.contains("\"listener\":\"CONTROLLER\"")) return;
        int keyAt = l.indexOf("\"requestApiKey\":");
        int clientAt = l.indexOf("\"clientId\":\"");
        if (keyAt < 0 || clientAt < 0) return;
        int key = Integer.parseInt(l.substring(keyAt + 16, l.indexOf(',', keyAt)));
        String clientId = l.substring(clientAt + 12, l.indexOf('"', clientAt + 12));
        String api = camel(ApiKeys.forId(key).name());
        boolean marker = key == ApiKeys.WRITE_TXN_MARKERS.id;
        if (!marker && !clientId.contains(".")) return;
        if (key == ApiKeys.FETCH.id || key == ApiKeys.METADATA.id || key == ApiKeys.API_VERSIONS.id) {
            counts.merge(clientId + " " + api, 1, Integer::sum);
            return;
        }
        JsonNode n;
        try {
            n = M.readTree(l.substring(js));
        } catch (IOException e) {
            return;
        }
        ObjectNode o = M.createObjectNode();
        o.put("t", Long.parseLong(l.substring(0, sp)));
        o.put("client_id", clientId);
        o.put("connection", n.path("connection").asText(""));
        o.put("total_ms", n.path("totalTimeMs").asDouble(0));
        o.put("api", api);
        o.put("version", n.path("requestHeader").path("requestApiVersion").asInt());
        JsonNode req = n.path("request"), resp = n.path("response");
        TreeSet<String> errs = new TreeSet<>();
        collectErrors(resp, errs);
        int top = resp.path("errorCode").asInt(0);
        String err = top != 0 ? Errors.forCode((short) top).name() : errs.isEmpty() ? "NONE" : errs.first();
        o.put("error", err);
        ArrayNode ea = o.putArray("errors");
        errs.forEach(ea::add);
        if (key == ApiKeys.HEARTBEAT.id && err.equals("NONE")) {
            counts.merge(clientId + " " + api, 1, Integer::sum);
            return;
        }
        o.set("request", slim(req));
        o.set("response", slim(resp));
        decodeConsumerProtocol(key, o);
        requests.add(o);
    }

    /** JOIN_GROUP -> JoinGroup, as Kafka's protocol and kgviz name the APIs. */
    static String camel(String enumName) {
        StringBuilder b = new StringBuilder();
        for (String w : enumName.split("_")) {
            if (w.isEmpty()) continue;
            b.append(w.charAt(0)).append(w.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return b.toString();
    }

    private static void collectErrors(JsonNode n, TreeSet<String> out) {
        if (n.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                var e = it.next();
                if (e.getKey().equals("errorCode") && e.getValue().asInt() != 0) out.add(Errors.forCode((short) e.getValue().asInt()).name());
                else collectErrors(e.getValue(), out);
            }
        } else if (n.isArray()) {
            for (JsonNode c : n) collectErrors(c, out);
        }
    }

    private static final java.util.Set<String> DROP = java.util.Set.of("apiKeys", "supportedFeatures", "finalizedFeatures", "throttleTimeMs",
        "clientSoftwareName", "clientSoftwareVersion", "recordsSizeInBytes", "records", "rack", "rackId", "errorMessage", "tags", "host");

    /** The request or response without bulky fields. */
    private static JsonNode slim(JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = M.createObjectNode();
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                var e = it.next();
                if (DROP.contains(e.getKey())) continue;
                o.set(e.getKey(), slim(e.getValue()));
            }
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = M.createArrayNode();
            for (JsonNode c : n) a.add(slim(c));
            return a;
        }
        return n;
    }

    /** JoinGroup's subscriptions and SyncGroup's assignments are ConsumerProtocol bytes: decode them. */
    private static void decodeConsumerProtocol(int key, ObjectNode o) {
        try {
            if (key == ApiKeys.JOIN_GROUP.id) {
                for (JsonNode p : o.path("request").path("protocols")) {
                    decodeSubscription((ObjectNode) p, "metadata");
                }
                for (JsonNode m : o.path("response").path("members")) {
                    decodeSubscription((ObjectNode) m, "metadata");
                }
            } else if (key == ApiKeys.SYNC_GROUP.id) {
                for (JsonNode a : o.path("request").path("assignments")) decodeAssignment((ObjectNode) a);
                if (o.path("response").has("assignment")) decodeAssignment((ObjectNode) o.path("response"));
            }
        } catch (RuntimeException e) {
            // leave the bytes as they are
        }
    }

    private static void decodeSubscription(ObjectNode n, String field) {
        if (!n.has(field) || !n.get(field).isTextual()) return;
        byte[] b = Base64.getDecoder().decode(n.get(field).asText());
        n.remove(field);
        if (b.length == 0) return;
        ConsumerPartitionAssignor.Subscription s = ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(b));
        ArrayNode owned = n.putArray("owned");
        for (TopicPartition tp : s.ownedPartitions()) owned.add(tp.topic() + "-" + tp.partition());
        n.put("owned_generation", s.generationId().orElse(-1));
    }

    private static void decodeAssignment(ObjectNode n) {
        if (!n.has("assignment") || !n.get("assignment").isTextual()) return;
        byte[] b = Base64.getDecoder().decode(n.get("assignment").asText());
        n.remove("assignment");
        ArrayNode parts = n.putArray("partitions");
        if (b.length == 0) return;
        ConsumerPartitionAssignor.Assignment a = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(b));
        for (TopicPartition tp : a.partitions()) parts.add(tp.topic() + "-" + tp.partition());
    }

    /** Requests of clients tagged tag (client.id "tag.C1"), plus the marker requests for the given producer ids. */
    synchronized List<ObjectNode> requests(String tag, long from, long to, java.util.Set<Long> pids) {
        List<ObjectNode> out = new ArrayList<>();
        for (ObjectNode o : requests) {
            long t = o.path("t").asLong();
            if (t < from || t > to) continue;
            if (o.path("client_id").asText().startsWith(tag + ".")) {
                out.add(o);
            } else if (o.path("api").asText().equals("WriteTxnMarkers")) {
                for (JsonNode mk : o.path("request").path("markers")) {
                    if (pids.contains(mk.path("producerId").asLong())) {
                        out.add(o);
                        break;
                    }
                }
            }
        }
        return out;
    }

    synchronized Map<String, Integer> counts(String tag) {
        Map<String, Integer> out = new java.util.TreeMap<>();
        counts.forEach((k, v) -> {
            if (k.startsWith(tag + ".")) out.put(k.substring(tag.length() + 1), v);
        });
        return out;
    }

    synchronized List<String[]> coordinatorLines(String tag, long from, long to) {
        List<String[]> out = new ArrayList<>();
        for (String[] l : coordinator) {
            long t = Long.parseLong(l[0]);
            if (t >= from && t <= to && l[2].contains(tag + ".")) out.add(l);
        }
        return out;
    }
}
