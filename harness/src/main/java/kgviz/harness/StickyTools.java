package kgviz.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * The harness modes behind kgviz's Kafka-exact sticky assignors (kgviz/sticky*.go).
 *
 * <pre>
 * Harness javaorder
 *     reads one JSON object per line and prints the real JVM's answer, for
 *     kgviz/javaorder.go's tests:
 *       {"id": 1, "keys": ["C1-1", "C2-1", ...]}
 *         → {"id": 1, "hashes": [...String.hashCode...], "order": [indices],
 *            "copy": [indices]}
 *       order: the key order of a new HashMap&lt;String, Integer&gt;() after put(keys[i], i)
 *       (a repeated key keeps its first place); copy: the order of a second new HashMap
 *       filled in the first one's order (AbstractStickyAssignor's consumerToOwnedPartitions).
 *       {"id": 2, "set": [["+", "t", 3], ["-", "t", 3], ...]}
 *         → {"id": 2, "firsts": [["t", 3] or null, ...]}
 *       a new HashSet&lt;TopicPartition&gt;() after each add (+) or remove (-): what
 *       iterator().next() returns (PartitionMovements' getTheActualPartitionToBeMoved).
 * Harness stickyscale ASSIGNOR TOPICS PARTITIONS CONSUMERS WARMUPS RUNS
 *     times Kafka's sticky or cooperative-sticky assignPartitions() on the input of
 *     AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription
 *     (topics t000.., consumers c0000.., everybody subscribed to every topic): a fresh
 *     assignment, then the re-assignment with every member owning its fresh partitions
 *     (generation 1) and consumer 0 gone. Prints one JSON object: the process CPU time and
 *     wall time of each measured run (milliseconds; CPU includes GC and JIT) and both plans,
 *     each member's partitions as numbers topic*PARTITIONS+partition.
 * </pre>
 */
final class StickyTools {
    private StickyTools() {
    }

    @SuppressWarnings("unchecked")
    static void javaOrder() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> c = (Map<String, Object>) Json.parse(line);
            StringBuilder sb = new StringBuilder("{\"id\":").append(c.get("id"));
            if (c.containsKey("keys")) {
                List<Object> keys = (List<Object>) c.get("keys");
                Map<String, Integer> m = new HashMap<>();
                StringBuilder hashes = new StringBuilder();
                for (int i = 0; i < keys.size(); i++) {
                    String k = (String) keys.get(i);
                    m.putIfAbsent(k, i);
                    if (i > 0) hashes.append(',');
                    hashes.append(k.hashCode());
                }
                Map<String, Integer> copy = new HashMap<>();
                for (Map.Entry<String, Integer> e : m.entrySet()) copy.put(e.getKey(), e.getValue());
                sb.append(",\"hashes\":[").append(hashes).append("],\"order\":").append(m.values())
                    .append(",\"copy\":").append(copy.values());
            }
            if (c.containsKey("set")) {
                Set<TopicPartition> s = new HashSet<>();
                StringBuilder firsts = new StringBuilder();
                for (Object o : (List<Object>) c.get("set")) {
                    List<Object> op = (List<Object>) o;
                    TopicPartition tp = new TopicPartition((String) op.get(1), ((Number) op.get(2)).intValue());
                    if (op.get(0).equals("+")) s.add(tp);
                    else s.remove(tp);
                    if (firsts.length() > 0) firsts.append(',');
                    if (s.isEmpty()) {
                        firsts.append("null");
                    } else {
                        TopicPartition f = s.iterator().next();
                        firsts.append('[').append(Json.quote(f.topic())).append(',').append(f.partition()).append(']');
                    }
                }
                sb.append(",\"firsts\":[").append(firsts).append(']');
            }
            out.println(sb.append('}'));
        }
        out.flush();
    }

    static void scale(String[] args) {
        Harness.Scale.Input in = new Harness.Scale.Input("stickyscale", "", args);
        String name = in.name;
        int warmups = in.warmups;
        int runs = in.runs;
        List<String> topics = in.topics;
        Map<String, Integer> topicIndex = new HashMap<>();
        for (int t = 0; t < topics.size(); t++) topicIndex.put(topics.get(t), t);
        Map<String, List<PartitionInfo>> partitionsPerTopic = in.partitionsPerTopic;
        List<String> ids = in.ids;
        Map<String, Subscription> fresh = in.fresh;

        List<Double> freshCpu = new ArrayList<>(), freshWall = new ArrayList<>();
        List<Double> againCpu = new ArrayList<>(), againWall = new ArrayList<>();
        Map<String, List<TopicPartition>> first = null, second = null;
        Map<String, Subscription> next = null;
        for (int r = 0; r < warmups + runs; r++) {
            AbstractStickyAssignor a = (AbstractStickyAssignor) Harness.newAssignor(name);
            long c0 = Harness.Scale.cpuNanos(), t0 = System.nanoTime();
            first = a.assignPartitions(partitionsPerTopic, fresh);
            long t1 = System.nanoTime(), c1 = Harness.Scale.cpuNanos();
            if (next == null) {
                next = new HashMap<>();
                for (int c = 1; c < in.consumerCount; c++)
                    next.put(ids.get(c), Harness.subscription(name, topics, first.get(ids.get(c)), 1, 1, null));
            }
            for (Subscription s : next.values())
                if (s.userData() != null) s.userData().rewind();
            AbstractStickyAssignor b = (AbstractStickyAssignor) Harness.newAssignor(name);
            long c2 = Harness.Scale.cpuNanos(), t2 = System.nanoTime();
            second = b.assignPartitions(partitionsPerTopic, next);
            long t3 = System.nanoTime(), c3 = Harness.Scale.cpuNanos();
            if (r >= warmups) {
                freshCpu.add((c1 - c0) / 1e6);
                freshWall.add((t1 - t0) / 1e6);
                againCpu.add((c3 - c2) / 1e6);
                againWall.add((t3 - t2) / 1e6);
            }
        }
        StringBuilder sb = new StringBuilder(1 << 24);
        sb.append("{\"kafka\":").append(Json.quote(AppInfoParser.getVersion()));
        sb.append(",\"assignor\":").append(Json.quote(name));
        sb.append(",\"fresh_cpu_ms\":").append(freshCpu).append(",\"fresh_wall_ms\":").append(freshWall);
        sb.append(",\"reassign_cpu_ms\":").append(againCpu).append(",\"reassign_wall_ms\":").append(againWall);
        sb.append(",\"fresh\":");
        plan(sb, first, topicIndex, in.partitionCount);
        sb.append(",\"reassign\":");
        plan(sb, second, topicIndex, in.partitionCount);
        System.out.println(sb.append('}'));
    }

    static void plan(StringBuilder sb, Map<String, List<TopicPartition>> plan, Map<String, Integer> topicIndex, int partitions) {
        List<String> ids = new ArrayList<>(plan.keySet());
        Collections.sort(ids);
        sb.append('{');
        for (Iterator<String> it = ids.iterator(); it.hasNext(); ) {
            String id = it.next();
            sb.append(Json.quote(id)).append(":[");
            boolean first = true;
            for (TopicPartition tp : plan.get(id)) {
                if (!first) sb.append(',');
                first = false;
                sb.append((long) topicIndex.get(tp.topic()) * partitions + tp.partition());
            }
            sb.append(']');
            if (it.hasNext()) sb.append(',');
        }
        sb.append('}');
    }
}
