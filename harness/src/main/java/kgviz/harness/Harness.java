package kgviz.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.CollectionUtils;

/**
 * Runs Kafka's own client-side assignors (kafka-clients, non-rack-aware) for
 * kgviz's differential tests and benchmarks.
 *
 * <pre>
 * Harness version
 *     prints the kafka-clients version on the classpath.
 * Harness names
 *     prints Kafka's names: {"errors": {"NONE": 0, ...} (org.apache.kafka.common.protocol.Errors),
 *     "classicGroupStates": [...] (GroupState.groupStatesForType(CLASSIC)),
 *     "transactionStates": [...] (org.apache.kafka.clients.admin.TransactionState)}.
 * Harness assign [TIMEOUT_MS]
 *     reads one JSON object per line on stdin:
 *       {"id": 7, "topics": {"t0": 12, ...},
 *        "members": [{"id": "C1-x", "instance": "i1", "topics": ["t0"],
 *                     "owned": ["t0-3", ...], "generation": 5, "joinGeneration": 6}, ...],
 *        "assignors": ["range", "roundrobin", "sticky", "cooperative-sticky", "cooperative-sticky-target"]}
 *     and prints one per line:
 *       {"id": 7, "plans": {"range": {"C1-x": ["t0-0", ...], ...}, ...}, "errors": {"sticky": "..."},
 *        "micros": {"range": 15, ...}}
 *     (micros: how long each assign() took, in microseconds)
 *     "cooperative-sticky" is CooperativeStickyAssignor's real answer, which leaves out
 *     the partitions still owned by another member (KIP-429); "cooperative-sticky-target"
 *     is the same algorithm before that step (the target plan kgviz's assignors return).
 *     An assign() that takes longer than TIMEOUT_MS (default 5000) is reported as an
 *     error ("timeout: ..."); Kafka's general sticky algorithm can loop forever
 *     (GeneralAssignmentBuilder.performReassignments). The stuck thread is stopped; if
 *     the JVM cannot stop it, the harness prints the case's line and exits with status 3,
 *     and the caller starts it again with the cases that follow.
 * Harness scale ASSIGNOR TOPICS PARTITIONS CONSUMERS WARMUPS RUNS [gone|kafkatest]
 *     times Kafka's sticky or cooperative-sticky assignPartitions() on the input of
 *     AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription
 *     (topics t000.., consumers c0000.., everybody subscribed to every topic): a fresh
 *     assignment, then a re-assignment with every member owning its fresh partitions
 *     (generation 1) and consumer 0 gone ("gone", the default) or, as in Kafka's test,
 *     still there without owned partitions ("kafkatest"). Prints one JSON object with the
 *     wall-clock times (fresh_ms, reassign_ms) and the JVM's CPU times (fresh_cpu_ms, ...:
 *     the assignor's thread plus GC and JIT) of the measured runs, and their medians.
 * Harness vectors SEED CASES
 *     GenerateVectors: range and round-robin on seeded random groups (gen.sh).
 * Harness javaorder | stickyscale ...
 *     StickyTools: Java's HashMap/HashSet orders, and Kafka's sticky assignors at scale.
 * </pre>
 *
 * Subscriptions are built the way ConsumerCoordinator builds them on the leader: a
 * HashMap from member id to Subscription, with ownedPartitions and generationId; the
 * eager StickyAssignor gets its previous assignment and generation in its user data
 * (the member revoked everything before joining, so ownedPartitions is empty). The
 * Subscription's generationId is "joinGeneration" (default: "generation"), the
 * generation the member was in when it joined.
 */
public final class Harness {
    static final Node NODE = new Node(0, "localhost", 9092);

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "version":
                System.out.println(AppInfoParser.getVersion());
                break;
            case "names":
                names();
                break;
            case "assign":
                if (args.length > 1) timeoutMs = Long.parseLong(args[1]);
                assignLoop();
                break;
            case "scale":
                Scale.main(Arrays.copyOfRange(args, 1, args.length));
                break;
            case "javaorder":
                StickyTools.javaOrder();
                break;
            case "stickyscale":
                StickyTools.scale(Arrays.copyOfRange(args, 1, args.length));
                break;
            case "vectors":
                GenerateVectors.main(Arrays.copyOfRange(args, 1, args.length));
                break;
            case "server-assign":
            case "server-timeline":
            case "server-bench":
            case "server-reconcile":
                ServerAssign.main(mode, Arrays.copyOfRange(args, 1, args.length));
                break;
            default:
                System.err.println("usage: Harness version | names | assign < cases.jsonl | scale ASSIGNOR TOPICS PARTITIONS CONSUMERS WARMUPS RUNS [gone|kafkatest] | vectors SEED CASES | server-assign | server-timeline | server-reconcile | server-bench ... (ServerAssign)");
                System.exit(2);
        }
    }

    static void names() {
        StringBuilder sb = new StringBuilder("{\"errors\":{");
        boolean first = true;
        for (Errors e : Errors.values()) {
            if (!first) sb.append(',');
            first = false;
            sb.append(Json.quote(e.name())).append(':').append(e.code());
        }
        sb.append("},\"classicGroupStates\":[");
        first = true;
        for (GroupState g : GroupState.groupStatesForType(GroupType.CLASSIC)) {
            if (!first) sb.append(',');
            first = false;
            sb.append(Json.quote(g.toString()));
        }
        sb.append("],\"transactionStates\":[");
        first = true;
        for (TransactionState t : TransactionState.values()) {
            if (!first) sb.append(',');
            first = false;
            sb.append(Json.quote(t.toString()));
        }
        System.out.println(sb.append("]}"));
    }

    /** CooperativeStickyAssignor's algorithm without its last step: the target plan. */
    static final class CooperativeStickyTarget extends AbstractStickyAssignor {
        private final CooperativeStickyAssignor real = new CooperativeStickyAssignor();

        @Override
        public String name() {
            return "cooperative-sticky-target";
        }

        @Override
        public List<RebalanceProtocol> supportedProtocols() {
            return real.supportedProtocols();
        }

        // Same as CooperativeStickyAssignor.memberData: the generation from the
        // subscription (v2+), else from the user data.
        @Override
        protected MemberData memberData(Subscription subscription) {
            if (subscription.generationId().isPresent()) {
                return new MemberData(subscription.ownedPartitions(), subscription.generationId());
            }
            ByteBuffer buffer = subscription.userData();
            Optional<Integer> generation;
            if (buffer == null) {
                generation = Optional.empty();
            } else {
                ByteBuffer b = buffer.duplicate();
                generation = Optional.of(b.remaining() >= 4 ? b.getInt() : DEFAULT_GENERATION);
            }
            return new MemberData(subscription.ownedPartitions(), generation, subscription.rackId());
        }
    }

    static ConsumerPartitionAssignor newAssignor(String name) {
        switch (name) {
            case "range": return new RangeAssignor();
            case "roundrobin": return new RoundRobinAssignor();
            case "sticky": return new StickyAssignor();
            case "cooperative-sticky": return new CooperativeStickyAssignor();
            case "cooperative-sticky-target": return new CooperativeStickyTarget();
            default: throw new IllegalArgumentException("unknown assignor " + name);
        }
    }

    static long timeoutMs = 5000;
    private static ExecutorService pool;
    private static Thread worker;
    private static boolean mustExit;

    /** Runs one assign() on a worker thread, for at most timeoutMs. */
    static GroupAssignment assignWithTimeout(ConsumerPartitionAssignor a, Cluster cluster, GroupSubscription group) throws Exception {
        if (pool == null) {
            pool = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "kafka-assign");
                t.setDaemon(true);
                worker = t;
                return t;
            });
        }
        Future<GroupAssignment> f = pool.submit(() -> a.assign(cluster, group));
        try {
            return f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) throw (Exception) cause;
            throw e;
        } catch (TimeoutException e) {
            // A stuck assignor: stop its thread (Thread.stop still works on Java 17;
            // called reflectively since it is deprecated for removal).
            Thread stuck = worker;
            f.cancel(true);
            pool.shutdownNow();
            pool = null;
            try {
                Thread.class.getMethod("stop").invoke(stuck);
                stuck.join(2000);
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // not supported: fall through
            }
            if (stuck.isAlive()) mustExit = true;
            throw new TimeoutException("timeout: " + a.name() + " did not return within " + timeoutMs + " ms");
        }
    }

    static final List<String> ALL = List.of("range", "roundrobin", "sticky", "cooperative-sticky", "cooperative-sticky-target");

    /** StickyAssignor's user data (STICKY_ASSIGNOR_USER_DATA_V1): previous assignment and generation. */
    static ByteBuffer stickyUserData(List<TopicPartition> owned, int generation) {
        Map<String, List<Integer>> byTopic = CollectionUtils.groupPartitionsByTopic(owned);
        int size = 4 + 4;
        for (Map.Entry<String, List<Integer>> e : byTopic.entrySet())
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + 4 * e.getValue().size();
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(byTopic.size());
        for (Map.Entry<String, List<Integer>> e : byTopic.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putShort((short) name.length);
            b.put(name);
            b.putInt(e.getValue().size());
            for (int p : e.getValue()) b.putInt(p);
        }
        b.putInt(generation);
        b.flip();
        return b;
    }

    /** CooperativeStickyAssignor's user data (COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0): the generation. */
    static ByteBuffer cooperativeUserData(int generation) {
        ByteBuffer b = ByteBuffer.allocate(4);
        b.putInt(generation);
        b.flip();
        return b;
    }

    /**
     * The Subscription a member sends for this assignor, as the real consumer
     * builds it (ConsumerCoordinator.metadata and the assignor's subscriptionUserData).
     */
    static Subscription subscription(String assignor, List<String> topics, List<TopicPartition> owned, int generation, int joinGeneration, String instance) {
        Subscription s;
        switch (assignor) {
            case "sticky":
                // Eager: owned partitions were revoked before JoinGroup; the previous
                // assignment travels in the user data (none before the first assignment).
                ByteBuffer userData = owned.isEmpty() && generation < 0 ? null : stickyUserData(owned, generation);
                s = new Subscription(topics, userData, Collections.emptyList(), joinGeneration, Optional.empty());
                break;
            case "cooperative-sticky":
            case "cooperative-sticky-target":
                s = new Subscription(topics, cooperativeUserData(generation), owned, joinGeneration, Optional.empty());
                break;
            default:
                s = new Subscription(topics, null, owned, joinGeneration, Optional.empty());
        }
        if (instance != null && !instance.isEmpty()) s.setGroupInstanceId(Optional.of(instance));
        return s;
    }

    /** " at Class.method(File:line) < ..." for the top frames of an exception. */
    static String where(Throwable ex) {
        StringBuilder sb = new StringBuilder();
        StackTraceElement[] st = ex.getStackTrace();
        for (int k = 0; k < Math.min(3, st.length); k++) {
            String cls = st[k].getClassName();
            sb.append(k == 0 ? " at " : " < ").append(cls.substring(cls.lastIndexOf('.') + 1)).append('.').append(st[k].getMethodName())
                .append('(').append(st[k].getFileName()).append(':').append(st[k].getLineNumber()).append(')');
        }
        return sb.toString();
    }

    static TopicPartition parseTP(String s) {
        int i = s.lastIndexOf('-');
        return new TopicPartition(s.substring(0, i), Integer.parseInt(s.substring(i + 1)));
    }

    @SuppressWarnings("unchecked")
    static void assignLoop() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 20));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> c = (Map<String, Object>) Json.parse(line);
            Object id = c.get("id");

            Map<String, Object> topics = (Map<String, Object>) c.getOrDefault("topics", Map.of());
            List<PartitionInfo> parts = new ArrayList<>();
            for (Map.Entry<String, Object> e : topics.entrySet()) {
                int n = ((Number) e.getValue()).intValue();
                for (int p = 0; p < n; p++)
                    parts.add(new PartitionInfo(e.getKey(), p, NODE, new Node[]{NODE}, new Node[]{NODE}));
            }
            Cluster cluster = new Cluster("kgviz", List.of(NODE), parts, Set.of(), Set.of());

            List<String> names = ALL;
            if (c.get("assignors") != null) {
                names = new ArrayList<>();
                for (Object o : (List<Object>) c.get("assignors")) names.add((String) o);
            }

            List<Map<String, Object>> members = new ArrayList<>();
            for (Object o : (List<Object>) c.getOrDefault("members", List.of())) members.add((Map<String, Object>) o);

            StringBuilder sb = new StringBuilder(1 << 12);
            sb.append("{\"id\":").append(id instanceof String ? Json.quote((String) id) : String.valueOf(id)).append(",\"plans\":{");
            StringBuilder errors = new StringBuilder();
            StringBuilder times = new StringBuilder();
            boolean firstPlan = true;
            for (String name : names) {
                // A HashMap, as ConsumerCoordinator.onLeaderElected builds it.
                Map<String, Subscription> subs = new HashMap<>();
                for (Map<String, Object> m : members) {
                    List<String> ts = new ArrayList<>();
                    for (Object t : (List<Object>) m.getOrDefault("topics", List.of())) ts.add((String) t);
                    List<TopicPartition> owned = new ArrayList<>();
                    for (Object t : (List<Object>) m.getOrDefault("owned", List.of())) owned.add(parseTP((String) t));
                    int gen = m.get("generation") == null ? -1 : ((Number) m.get("generation")).intValue();
                    int joinGen = m.get("joinGeneration") == null ? gen : ((Number) m.get("joinGeneration")).intValue();
                    String inst = (String) m.get("instance");
                    subs.put((String) m.get("id"), subscription(name, ts, owned, gen, joinGen, inst));
                }
                if (mustExit) {
                    if (errors.length() > 0) errors.append(',');
                    errors.append(Json.quote(name)).append(':').append(Json.quote("not run: the harness restarts after a timeout"));
                    continue;
                }
                try {
                    // A new instance per call: AbstractStickyAssignor keeps maxGeneration across calls.
                    long t0 = System.nanoTime();
                    GroupAssignment ga = assignWithTimeout(newAssignor(name), cluster, new GroupSubscription(subs));
                    long t1 = System.nanoTime();
                    if (times.length() > 0) times.append(',');
                    times.append(Json.quote(name)).append(':').append((t1 - t0) / 1000);
                    if (!firstPlan) sb.append(',');
                    firstPlan = false;
                    sb.append(Json.quote(name)).append(":{");
                    boolean firstMember = true;
                    for (Map.Entry<String, ConsumerPartitionAssignor.Assignment> e : ga.groupAssignment().entrySet()) {
                        if (!firstMember) sb.append(',');
                        firstMember = false;
                        sb.append(Json.quote(e.getKey())).append(":[");
                        boolean firstTP = true;
                        for (TopicPartition tp : e.getValue().partitions()) {
                            if (!firstTP) sb.append(',');
                            firstTP = false;
                            sb.append(Json.quote(tp.toString()));
                        }
                        sb.append(']');
                    }
                    sb.append('}');
                } catch (Exception ex) {
                    if (errors.length() > 0) errors.append(',');
                    String msg = ex instanceof TimeoutException ? ex.getMessage() : ex + where(ex);
                    errors.append(Json.quote(name)).append(':').append(Json.quote(msg));
                }
            }
            sb.append("},\"errors\":{").append(errors).append("},\"micros\":{").append(times).append("}}");
            out.println(sb);
            out.flush();
            if (mustExit) System.exit(3);
        }
        out.flush();
    }

    /** Kafka's scale test input and a timer around assignPartitions(). */
    static final class Scale {
        static String pad(String prefix, int i, int max) {
            String digits = Integer.toString(i);
            int width = Integer.toString(max).length();
            StringBuilder sb = new StringBuilder(prefix);
            for (int k = digits.length(); k < width; k++) sb.append('0');
            return sb.append(digits).toString();
        }

        /**
         * The arguments of a scale mode ("scale", "stickyscale") and the input they describe:
         * topics t0..tN of PARTITIONS partitions each, consumers c0..cM subscribed to all of them.
         */
        static final class Input {
            final String name;
            final int topicCount, partitionCount, consumerCount, warmups, runs;
            final List<String> topics = new ArrayList<>();
            final List<String> ids = new ArrayList<>();
            final Map<String, List<PartitionInfo>> partitionsPerTopic = new HashMap<>();
            final Map<String, Subscription> fresh = new HashMap<>();

            Input(String mode, String usageTail, String[] args) {
                if (args.length < 6)
                    throw new IllegalArgumentException(mode + " ASSIGNOR TOPICS PARTITIONS CONSUMERS WARMUPS RUNS" + usageTail);
                name = args[0];
                topicCount = Integer.parseInt(args[1]);
                partitionCount = Integer.parseInt(args[2]);
                consumerCount = Integer.parseInt(args[3]);
                warmups = Integer.parseInt(args[4]);
                runs = Integer.parseInt(args[5]);
                if (!name.equals("sticky") && !name.equals("cooperative-sticky"))
                    throw new IllegalArgumentException(mode + ": sticky or cooperative-sticky, not " + name);
                for (int t = 0; t < topicCount; t++) {
                    String topic = pad("t", t, topicCount);
                    topics.add(topic);
                    List<PartitionInfo> infos = new ArrayList<>(partitionCount);
                    for (int p = 0; p < partitionCount; p++)
                        infos.add(new PartitionInfo(topic, p, Node.noNode(), new Node[0], new Node[0]));
                    partitionsPerTopic.put(topic, infos);
                }
                for (int c = 0; c < consumerCount; c++) {
                    ids.add(pad("c", c, consumerCount));
                    fresh.put(ids.get(c), new Subscription(topics));
                }
            }
        }

        static void main(String[] args) {
            Input in = new Input("scale", " [gone|kafkatest]", args);
            String name = in.name;
            int topicCount = in.topicCount;
            int partitionCount = in.partitionCount;
            int consumerCount = in.consumerCount;
            int warmups = in.warmups;
            int runs = in.runs;
            boolean kafkaTest = args.length > 6 && args[6].equals("kafkatest");
            List<String> topics = in.topics;
            Map<String, List<PartitionInfo>> partitionsPerTopic = in.partitionsPerTopic;
            Map<String, Subscription> fresh = in.fresh;

            List<Double> freshMs = new ArrayList<>();
            List<Double> reassignMs = new ArrayList<>();
            List<Double> freshCpuMs = new ArrayList<>();
            List<Double> reassignCpuMs = new ArrayList<>();
            Map<String, List<TopicPartition>> first = null;
            Map<String, List<TopicPartition>> second = null;
            Map<String, Subscription> next = null;
            for (int r = 0; r < warmups + runs; r++) {
                AbstractStickyAssignor a = (AbstractStickyAssignor) newAssignor(name);
                long c0 = cpuNanos();
                long t0 = System.nanoTime();
                first = a.assignPartitions(partitionsPerTopic, fresh);
                long t1 = System.nanoTime();
                long c1 = cpuNanos();
                if (next == null) {
                    next = new HashMap<>();
                    for (int c = 0; c < consumerCount; c++) {
                        String id = pad("c", c, consumerCount);
                        if (c == 0) {
                            if (kafkaTest) next.put(id, fresh.get(id));
                            continue;
                        }
                        next.put(id, subscription(name, topics, first.get(id), 1, 1, null));
                    }
                }
                for (Subscription s : next.values())
                    if (s.userData() != null) s.userData().rewind();
                AbstractStickyAssignor b = (AbstractStickyAssignor) newAssignor(name);
                long c2 = cpuNanos();
                long t2 = System.nanoTime();
                second = b.assignPartitions(partitionsPerTopic, next);
                long t3 = System.nanoTime();
                long c3 = cpuNanos();
                if (r >= warmups) {
                    freshMs.add((t1 - t0) / 1e6);
                    reassignMs.add((t3 - t2) / 1e6);
                    freshCpuMs.add((c1 - c0) / 1e6);
                    reassignCpuMs.add((c3 - c2) / 1e6);
                }
            }
            long total = (long) topicCount * partitionCount;
            // The cooperative plan withholds partitions that change owner: count them.
            int moved = 0;
            for (Map.Entry<String, Subscription> e : next.entrySet()) {
                List<TopicPartition> owned = name.equals("sticky") ? first.get(e.getKey()) : e.getValue().ownedPartitions();
                if (owned == null) continue;
                Set<TopicPartition> now = new HashSet<>(second.get(e.getKey()));
                for (TopicPartition tp : owned) if (!now.contains(tp)) moved++;
            }
            StringBuilder sb = new StringBuilder("{");
            sb.append("\"kafka\":").append(Json.quote(AppInfoParser.getVersion()));
            sb.append(",\"assignor\":").append(Json.quote(name));
            sb.append(",\"topics\":").append(topicCount).append(",\"partitions\":").append(total);
            sb.append(",\"consumers\":").append(consumerCount);
            sb.append(",\"variant\":").append(Json.quote(kafkaTest ? "kafkatest" : "gone"));
            sb.append(",\"warmups\":").append(warmups).append(",\"runs\":").append(runs);
            sb.append(",\"fresh_ms\":").append(freshMs).append(",\"reassign_ms\":").append(reassignMs);
            sb.append(",\"fresh_median_ms\":").append(median(freshMs));
            sb.append(",\"reassign_median_ms\":").append(median(reassignMs));
            sb.append(",\"fresh_cpu_ms\":").append(freshCpuMs).append(",\"reassign_cpu_ms\":").append(reassignCpuMs);
            sb.append(",\"fresh_median_cpu_ms\":").append(median(freshCpuMs));
            sb.append(",\"reassign_median_cpu_ms\":").append(median(reassignCpuMs));
            sb.append(",\"fresh\":").append(check(first, total));
            sb.append(",\"reassign\":").append(check(second, name.equals("sticky") ? total : -1));
            sb.append(",\"moved\":").append(moved);
            sb.append('}');
            System.out.println(sb);
        }

        /** CPU time of the whole JVM (the assignor's thread, GC and JIT), in nanoseconds. */
        static long cpuNanos() {
            java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean)
                return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
            return System.nanoTime();
        }

        static double median(List<Double> xs) {
            List<Double> s = new ArrayList<>(xs);
            Collections.sort(s);
            int n = s.size();
            if (n == 0) return 0;
            return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
        }

        /** Validity and balance of a plan where everybody subscribes to everything (total < 0: some may be withheld). */
        static String check(Map<String, List<TopicPartition>> plan, long total) {
            Set<TopicPartition> seen = new HashSet<>();
            int min = Integer.MAX_VALUE, max = 0;
            boolean dup = false;
            for (List<TopicPartition> l : plan.values()) {
                min = Math.min(min, l.size());
                max = Math.max(max, l.size());
                for (TopicPartition tp : l) dup |= !seen.add(tp);
            }
            return "{\"assigned\":" + seen.size() + ",\"duplicates\":" + dup + ",\"min\":" + min + ",\"max\":" + max
                + ",\"complete\":" + (total < 0 || seen.size() == total) + "}";
        }
    }
}
