package kgviz.harness;

// GenerateVectors runs Kafka's own RangeAssignor and RoundRobinAssignor (from the
// kafka-clients jar, non-rack-aware path) on seeded random groups and prints
// each case and both plans as one JSON object per line. kgviz's assignor tests
// replay the output (kgviz/testdata/kafka_assignor_vectors.jsonl) against kgviz.Range and
// kgviz.RoundRobin. Regenerate with harness/gen-vectors.sh; the output only changes when the
// seed, the generator or Kafka's assignors change.
import java.util.*;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public class GenerateVectors {
    // Pieces of member ids and instance ids: ASCII, and characters on both
    // sides of Java's UTF-16 order (U+E000..U+FFFF sorts after a surrogate pair).
    static final String[] PIECES = {"a", "b", "c", "C1", "C2", "C10", "consumer", "-", "_", "é", "\uE000", "\uFFFD", "\uD83D\uDE00", "\uD800\uDC00", "z"};

    public static void main(String[] args) {
        long seed = args.length > 0 ? Long.parseLong(args[0]) : 20261101L;
        int cases = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        Random rnd = new Random(seed);
        Node node = new Node(0, "localhost", 9092);
        for (int c = 0; c < cases; c++) {
            int big = c % 50 == 49 ? 4 : 1;
            int numTopics = 1 + rnd.nextInt(5 * big);
            List<String> topicNames = new ArrayList<>();
            for (int t = 0; t < numTopics; t++)
                topicNames.add("t" + rnd.nextInt(12 * big));
            // partition counts; some topics do not exist (count 0)
            Map<String, Integer> counts = new TreeMap<>();
            for (String t : topicNames)
                counts.put(t, rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(7 * big));
            List<PartitionInfo> parts = new ArrayList<>();
            for (Map.Entry<String, Integer> e : counts.entrySet())
                for (int p = 0; p < e.getValue(); p++)
                    parts.add(new PartitionInfo(e.getKey(), p, node, new Node[]{node}, new Node[]{node}));
            Cluster cluster = new Cluster("kgviz", List.of(node), parts, Set.of(), Set.of());

            int numMembers = 1 + rnd.nextInt(7 * big);
            boolean equal = rnd.nextBoolean();
            Map<String, Subscription> subs = new LinkedHashMap<>();
            Set<String> instances = new HashSet<>();
            while (subs.size() < numMembers) {
                String id = piece(rnd) + piece(rnd) + (rnd.nextBoolean() ? piece(rnd) : "");
                if (subs.containsKey(id)) continue;
                List<String> ts = new ArrayList<>();
                if (equal) ts.addAll(new TreeSet<>(topicNames));
                else for (String t : new TreeSet<>(topicNames)) if (rnd.nextInt(3) != 0) ts.add(t);
                if (rnd.nextInt(10) == 0) ts.add("missing");
                Subscription s = new Subscription(ts);
                if (rnd.nextInt(3) == 0) {
                    String inst = "i" + piece(rnd) + piece(rnd);
                    if (instances.add(inst)) s.setGroupInstanceId(Optional.of(inst));
                }
                subs.put(id, s);
            }
            GroupSubscription group = new GroupSubscription(subs);
            GroupAssignment range = new RangeAssignor().assign(cluster, group);
            GroupAssignment rr = new RoundRobinAssignor().assign(cluster, group);

            StringBuilder sb = new StringBuilder();
            sb.append("{\"case\":").append(c).append(",\"topics\":{");
            boolean first = true;
            for (Map.Entry<String, Integer> e : counts.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                sb.append(str(e.getKey())).append(':').append(e.getValue());
            }
            sb.append("},\"members\":[");
            first = true;
            for (Map.Entry<String, Subscription> e : subs.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                sb.append("{\"id\":").append(str(e.getKey()));
                e.getValue().groupInstanceId().ifPresent(i -> sb.append(",\"instance\":").append(str(i)));
                sb.append(",\"topics\":").append(strs(e.getValue().topics())).append('}');
            }
            sb.append("],\"range\":").append(plan(range)).append(",\"roundrobin\":").append(plan(rr)).append('}');
            System.out.println(sb);
        }
    }

    static String piece(Random rnd) {
        return PIECES[rnd.nextInt(PIECES.length)];
    }

    // A plan as {"member": ["t-0", ...]}, members in id order, each list in Kafka's order.
    static String plan(GroupAssignment a) {
        TreeMap<String, List<TopicPartition>> byMember = new TreeMap<>();
        a.groupAssignment().forEach((member, assignment) -> byMember.put(member, assignment.partitions()));
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, List<TopicPartition>> e : byMember.entrySet()) {
            if (!first) sb.append(',');
            first = false;
            List<String> tps = new ArrayList<>();
            for (TopicPartition tp : e.getValue()) tps.add(tp.toString());
            sb.append(str(e.getKey())).append(':').append(strs(tps));
        }
        return sb.append('}').toString();
    }

    static String strs(List<String> xs) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < xs.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(str(xs.get(i)));
        }
        return sb.append(']').toString();
    }

    // A JSON string; every non-ASCII UTF-16 code unit as \\uXXXX.
    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') sb.append('\\').append(ch);
            else if (ch < 0x20 || ch > 0x7e) sb.append(String.format("\\u%04x", (int) ch));
            else sb.append(ch);
        }
        return sb.append('"').toString();
    }
}
