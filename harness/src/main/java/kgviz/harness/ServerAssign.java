package kgviz.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupTargetAssignmentMemberValue;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.coordinator.group.modern.SubscriptionCount;
import org.apache.kafka.coordinator.group.modern.TargetAssignmentBuilder;
import org.apache.kafka.coordinator.group.modern.TopicIds;
import org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroup;
import org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroupMember;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.timeline.SnapshotRegistry;
import org.apache.kafka.timeline.TimelineHashMap;

/**
 * Kafka's server-side assignors (group-coordinator 4.1.1) for kgviz's KIP-848
 * differential tests and benchmarks.
 *
 * <pre>
 * Harness server-assign
 *     reads one JSON object per line on stdin:
 *       {"id": 7, "assignors": ["uniform", "range"],
 *        "topics": [{"name": "orders", "id": "base64 Uuid", "partitions": 3}, ...],
 *        "members": [{"id": "C1-1", "instance": "", "rack": "", "topics": ["orders", ...]}, ...],
 *        "target": [["C1-1", [["base64 Uuid", [0, 2]], ...]], ...],
 *        "updates": [{"id": "C2-1", "member": {...}} or {"id": "C0-1"} (a removal)]}
 *     and runs TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder as
 *     GroupMetadataManager.updateTargetAssignment does: the members (a map
 *     iterated in the given order, standing for ConsumerGroup.members()), the
 *     static members, the subscription type (ModernGroup.subscriptionType),
 *     the target assignment (Assignment.fromRecord of each record), its inverted
 *     map, a MetadataImage with the topics, then addOrUpdateMember/removeMember
 *     in the given order. Prints one line per case:
 *       {"id": 7, "results": {"uniform": {"type": "Homogeneous",
 *          "records": [["C1-1", [["uuid", [0, 1]], ...]], ...]}, ...},
 *        "errors": {"range": "..."}, "micros": {"uniform": 12}}
 *     records: the ConsumerGroupTargetAssignmentMember records in the order the
 *     builder writes them (the epoch record left out).
 * Harness server-timeline
 *     reads lines of operations ["+C1-1", "-C1-1", ...] (put, remove) and prints
 *     the iteration order of a TimelineHashMap (ConsumerGroup.members()) after
 *     them, one JSON array per line.
 * Harness server-reconcile
 *     CurrentAssignmentBuilder on one member per line (see reconcileLoop).
 * Harness server-bench ASSIGNOR HOMOGENEOUS|HETEROGENEOUS FULL|INCREMENTAL MEMBERS WARMUPS RUNS PLANFILE
 *     reads one line of topics [{"name", "id", "partitions"}] on stdin, builds the input
 *     of Kafka's ServerSideAssignorBenchmark (members member0.., non-rack-aware;
 *     heterogeneous: 5 buckets of members, each subscribed to its fifth of the
 *     topics; INCREMENTAL: all but the last member assigned first, through the
 *     coordinator's records, then "newMember" joins) and times assign(). Prints
 *     {"assign_ms": [...], "median_ms": m, "cpu_ms": [...], "median_cpu_ms": m,
 *     "thread_cpu_ms": [...], "median_thread_cpu_ms": m} (wall time; the JVM's CPU time with
 *     GC and JIT; the calling thread's CPU time) and writes the timed plan to PLANFILE
 *     (one JSON line per member: ["member3", [["uuid", [partitions]], ...]]).
 * </pre>
 */
final class ServerAssign {
    private ServerAssign() {
    }

    static ConsumerGroupPartitionAssignor assignor(String name) {
        switch (name) {
            case "uniform": return new UniformAssignor();
            case "range": return new RangeAssignor();
            default: throw new IllegalArgumentException("unknown server assignor " + name);
        }
    }

    static MetadataImage image(List<Object> topics) {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        for (Object o : topics) {
            @SuppressWarnings("unchecked")
            Map<String, Object> t = (Map<String, Object>) o;
            Uuid id = Uuid.fromString((String) t.get("id"));
            delta.replay(new TopicRecord().setTopicId(id).setName((String) t.get("name")));
            int n = ((Number) t.get("partitions")).intValue();
            for (int p = 0; p < n; p++) {
                delta.replay(new PartitionRecord().setTopicId(id).setPartitionId(p).setReplicas(Arrays.asList(p % 4, (p + 1) % 4)));
            }
        }
        return delta.apply(MetadataProvenance.EMPTY);
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object o) {
        List<String> out = new ArrayList<>();
        if (o != null) for (Object s : (List<Object>) o) out.add((String) s);
        return out;
    }

    static String emptyToNull(Object s) {
        return s == null || ((String) s).isEmpty() ? null : (String) s;
    }

    @SuppressWarnings("unchecked")
    static ConsumerGroupMember member(Map<String, Object> m) {
        return new ConsumerGroupMember.Builder((String) m.get("id"))
            .setInstanceId(emptyToNull(m.get("instance")))
            .setRackId(emptyToNull(m.get("rack")))
            .setSubscribedTopicNames(strings(m.get("topics")))
            .build();
    }

    /** A target assignment record's value from [["uuid", [p, ...]], ...]. */
    @SuppressWarnings("unchecked")
    static ConsumerGroupTargetAssignmentMemberValue recordValue(List<Object> topics) {
        List<ConsumerGroupTargetAssignmentMemberValue.TopicPartition> tps = new ArrayList<>();
        for (Object o : topics) {
            List<Object> pair = (List<Object>) o;
            List<Integer> parts = new ArrayList<>();
            for (Object p : (List<Object>) pair.get(1)) parts.add(((Number) p).intValue());
            tps.add(new ConsumerGroupTargetAssignmentMemberValue.TopicPartition()
                .setTopicId(Uuid.fromString((String) pair.get(0)))
                .setPartitions(parts));
        }
        return new ConsumerGroupTargetAssignmentMemberValue().setTopicPartitions(tps);
    }

    static void appendRecord(StringBuilder sb, ConsumerGroupTargetAssignmentMemberValue v) {
        sb.append('[');
        boolean first = true;
        for (ConsumerGroupTargetAssignmentMemberValue.TopicPartition tp : v.topicPartitions()) {
            if (!first) sb.append(',');
            first = false;
            sb.append('[').append(Json.quote(tp.topicId().toString())).append(",[");
            boolean f = true;
            for (int p : tp.partitions()) {
                if (!f) sb.append(',');
                f = false;
                sb.append(p);
            }
            sb.append("]]");
        }
        sb.append(']');
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
            MetadataImage image = image((List<Object>) c.getOrDefault("topics", List.of()));

            // ConsumerGroup.members(), staticMembers(), and the names counts
            // behind ModernGroup.subscriptionType.
            Map<String, ConsumerGroupMember> members = new LinkedHashMap<>();
            Map<String, String> staticMembers = new HashMap<>();
            for (Object o : (List<Object>) c.getOrDefault("members", List.of())) {
                ConsumerGroupMember m = member((Map<String, Object>) o);
                members.put(m.memberId(), m);
                if (m.instanceId() != null) staticMembers.put(m.instanceId(), m.memberId());
            }
            // The group after the updates, for the subscription type.
            Map<String, ConsumerGroupMember> after = new LinkedHashMap<>(members);
            List<Object> updates = (List<Object>) c.getOrDefault("updates", List.of());
            for (Object o : updates) {
                Map<String, Object> u = (Map<String, Object>) o;
                if (u.get("member") == null) after.remove((String) u.get("id"));
                else after.put((String) u.get("id"), member((Map<String, Object>) u.get("member")));
            }
            Map<String, SubscriptionCount> names = new HashMap<>();
            for (ConsumerGroupMember m : after.values())
                for (String t : m.subscribedTopicNames()) names.merge(t, new SubscriptionCount(1, 0), (a, b) -> new SubscriptionCount(a.byNameCount + 1, 0));
            SubscriptionType type = ConsumerGroup.subscriptionType(Map.of(), names, after.size());

            // ConsumerGroup.targetAssignment() and invertedTargetAssignment(), as replayed from records.
            Map<String, Assignment> target = new HashMap<>();
            Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
            for (Object o : (List<Object>) c.getOrDefault("target", List.of())) {
                List<Object> pair = (List<Object>) o;
                String memberId = (String) pair.get(0);
                Assignment a = Assignment.fromRecord(recordValue((List<Object>) pair.get(1)));
                target.put(memberId, a);
                for (Map.Entry<Uuid, Set<Integer>> e : a.partitions().entrySet())
                    for (int p : e.getValue()) inverted.computeIfAbsent(e.getKey(), k -> new HashMap<>()).put(p, memberId);
            }

            List<String> names2 = strings(c.get("assignors"));
            if (names2.isEmpty()) names2 = List.of("uniform", "range");
            StringBuilder sb = new StringBuilder(1 << 12);
            sb.append("{\"id\":").append(id).append(",\"results\":{");
            StringBuilder errors = new StringBuilder();
            StringBuilder times = new StringBuilder();
            boolean firstResult = true;
            for (String name : names2) {
                try {
                    TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder b =
                        new TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder("kgviz", 1, assignor(name))
                            .withMembers(members)
                            .withStaticMembers(staticMembers)
                            .withSubscriptionType(type)
                            .withTargetAssignment(target)
                            .withInvertedTargetAssignment(inverted)
                            .withMetadataImage(image);
                    for (Object o : updates) {
                        Map<String, Object> u = (Map<String, Object>) o;
                        if (u.get("member") == null) b.removeMember((String) u.get("id"));
                        else b.addOrUpdateMember((String) u.get("id"), member((Map<String, Object>) u.get("member")));
                    }
                    long t0 = System.nanoTime();
                    TargetAssignmentBuilder.TargetAssignmentResult r = b.build();
                    long t1 = System.nanoTime();
                    if (times.length() > 0) times.append(',');
                    times.append(Json.quote(name)).append(':').append((t1 - t0) / 1000);
                    if (!firstResult) sb.append(',');
                    firstResult = false;
                    sb.append(Json.quote(name)).append(":{\"type\":").append(Json.quote(type.toString())).append(",\"records\":[");
                    boolean first = true;
                    for (CoordinatorRecord rec : r.records()) {
                        if (!(rec.key() instanceof ConsumerGroupTargetAssignmentMemberKey)) continue;
                        if (!first) sb.append(',');
                        first = false;
                        String memberId = ((ConsumerGroupTargetAssignmentMemberKey) rec.key()).memberId();
                        sb.append('[').append(Json.quote(memberId)).append(',');
                        appendRecord(sb, (ConsumerGroupTargetAssignmentMemberValue) rec.value().message());
                        sb.append(']');
                    }
                    sb.append("]}");
                } catch (Exception ex) {
                    if (errors.length() > 0) errors.append(',');
                    errors.append(Json.quote(name)).append(':').append(Json.quote(ex + Harness.where(ex)));
                }
            }
            sb.append("},\"errors\":{").append(errors).append("},\"micros\":{").append(times).append("}}");
            out.println(sb);
            out.flush();
        }
        out.flush();
    }

    @SuppressWarnings("unchecked")
    static void timelineLoop() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            SnapshotRegistry registry = new SnapshotRegistry(new LogContext());
            TimelineHashMap<String, Boolean> members = new TimelineHashMap<>(registry, 0);
            long epoch = 0;
            for (String op : strings(Json.parse(line))) {
                if (op.startsWith("+")) members.put(op.substring(1), Boolean.TRUE);
                else members.remove(op.substring(1));
                // The coordinator snapshots at every committed offset.
                registry.idempotentCreateSnapshot(epoch++);
            }
            StringBuilder sb = new StringBuilder("[");
            boolean first = true;
            for (Map.Entry<String, Boolean> e : members.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                sb.append(Json.quote(e.getKey()));
            }
            out.println(sb.append(']'));
            out.flush();
        }
    }

    @SuppressWarnings("unchecked")
    static Map<Uuid, Set<Integer>> partitionMap(Object o) {
        Map<Uuid, Set<Integer>> out = new HashMap<>();
        if (o == null) return out;
        for (Object e : (List<Object>) o) {
            List<Object> pair = (List<Object>) e;
            Set<Integer> ps = new java.util.HashSet<>();
            for (Object p : (List<Object>) pair.get(1)) ps.add(((Number) p).intValue());
            out.put(Uuid.fromString((String) pair.get(0)), ps);
        }
        return out;
    }

    static void appendSorted(StringBuilder sb, Map<Uuid, Set<Integer>> m) {
        List<Uuid> ids = new ArrayList<>(m.keySet());
        Collections.sort(ids);
        sb.append('[');
        boolean first = true;
        for (Uuid id : ids) {
            if (m.get(id).isEmpty()) continue;
            if (!first) sb.append(',');
            first = false;
            List<Integer> ps = new ArrayList<>(m.get(id));
            Collections.sort(ps);
            sb.append('[').append(Json.quote(id.toString())).append(',').append(ps.toString().replace(" ", "")).append(']');
        }
        sb.append(']');
    }

    /**
     * server-reconcile: one JSON object per line,
     *   {"id": 1, "state": "STABLE", "epoch": 3, "previous": 2, "assigned": [["uuid", [0]]], "pending": [...],
     *    "targetEpoch": 4, "target": [...], "held": [["uuid", 1, 3], ...], "owned": [...] or null}
     * runs CurrentAssignmentBuilder and prints
     *   {"id": 1, "state": ..., "epoch": ..., "previous": ..., "assigned": [...], "pending": [...]}
     * (partitions sorted) or {"id": 1, "error": "..."}.
     */
    @SuppressWarnings("unchecked")
    static void reconcileLoop() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20);
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 20));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> c = (Map<String, Object>) Json.parse(line);
            StringBuilder sb = new StringBuilder("{\"id\":").append(c.get("id"));
            try {
                ConsumerGroupMember member = new ConsumerGroupMember.Builder("m")
                    .setState(org.apache.kafka.coordinator.group.modern.MemberState.valueOf((String) c.get("state")))
                    .setMemberEpoch(((Number) c.get("epoch")).intValue())
                    .setPreviousMemberEpoch(((Number) c.get("previous")).intValue())
                    .setAssignedPartitions(partitionMap(c.get("assigned")))
                    .setPartitionsPendingRevocation(partitionMap(c.get("pending")))
                    .build();
                Map<Uuid, Map<Integer, Integer>> held = new HashMap<>();
                for (Object o : (List<Object>) c.getOrDefault("held", List.of())) {
                    List<Object> h = (List<Object>) o;
                    held.computeIfAbsent(Uuid.fromString((String) h.get(0)), k -> new HashMap<>())
                        .put(((Number) h.get(1)).intValue(), ((Number) h.get(2)).intValue());
                }
                List<org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = null;
                if (c.get("owned") != null) {
                    owned = new ArrayList<>();
                    for (Object o : (List<Object>) c.get("owned")) {
                        List<Object> pair = (List<Object>) o;
                        List<Integer> ps = new ArrayList<>();
                        for (Object p : (List<Object>) pair.get(1)) ps.add(((Number) p).intValue());
                        owned.add(new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData.TopicPartitions()
                            .setTopicId(Uuid.fromString((String) pair.get(0))).setPartitions(ps));
                    }
                }
                ConsumerGroupMember next = new org.apache.kafka.coordinator.group.modern.consumer.CurrentAssignmentBuilder(member)
                    .withTargetAssignment(((Number) c.get("targetEpoch")).intValue(), new Assignment(partitionMap(c.get("target"))))
                    .withCurrentPartitionEpoch((id, p) -> held.getOrDefault(id, Map.of()).getOrDefault(p, -1))
                    .withOwnedTopicPartitions(owned)
                    .build();
                sb.append(",\"state\":").append(Json.quote(next.state().name()))
                    .append(",\"epoch\":").append(next.memberEpoch())
                    .append(",\"previous\":").append(next.previousMemberEpoch())
                    .append(",\"assigned\":");
                appendSorted(sb, next.assignedPartitions());
                sb.append(",\"pending\":");
                appendSorted(sb, next.partitionsPendingRevocation());
            } catch (Exception ex) {
                sb.append(",\"error\":").append(Json.quote(ex + Harness.where(ex)));
            }
            out.println(sb.append('}'));
            out.flush();
        }
    }

    /** The input of Kafka's ServerSideAssignorBenchmark, through the coordinator's own structures. */
    @SuppressWarnings("unchecked")
    static void bench(String[] args) throws Exception {
        if (args.length < 7) throw new IllegalArgumentException("server-bench ASSIGNOR HOMOGENEOUS|HETEROGENEOUS FULL|INCREMENTAL MEMBERS WARMUPS RUNS PLANFILE");
        ConsumerGroupPartitionAssignor assignor = assignor(args[0]);
        SubscriptionType type = SubscriptionType.valueOf(args[1]);
        boolean incremental = args[2].equals("INCREMENTAL");
        int memberCount = Integer.parseInt(args[3]);
        int warmups = Integer.parseInt(args[4]);
        int runs = Integer.parseInt(args[5]);
        String planFile = args[6];

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<Object> topicList = (List<Object>) Json.parse(in.readLine());
        MetadataImage image = image(topicList);
        List<String> topicNames = new ArrayList<>();
        for (Object o : topicList) topicNames.add((String) ((Map<String, Object>) o).get("name"));
        TopicIds.CachedTopicResolver resolver = new TopicIds.CachedTopicResolver(image.topics());

        // Members 0..n-1 (all but "newMember" when incremental), each with its topics.
        int n = incremental ? memberCount - 1 : memberCount;
        List<List<String>> subscriptions = new ArrayList<>();
        if (type == SubscriptionType.HOMOGENEOUS) {
            for (int i = 0; i < n; i++) subscriptions.add(topicNames);
        } else {
            int buckets = Math.min(5, n);
            int topicsPerBucket = (int) Math.ceil((double) topicNames.size() / buckets);
            int membersPerBucket = (int) Math.ceil((double) n / buckets);
            for (int i = 0; i < n; i++) {
                int bucket = i / membersPerBucket;
                subscriptions.add(topicNames.subList(bucket * topicsPerBucket, Math.min((bucket + 1) * topicsPerBucket, topicNames.size())));
            }
        }
        Map<String, java.util.HashSet<String>> nameSets = new HashMap<>();
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        List<Set<String>> sets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // One HashSet per distinct subscription, as members built from one list share nothing but equal sets.
            Set<String> names = new java.util.HashSet<>(subscriptions.get(i));
            sets.add(names);
            specs.put("member" + i, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(),
                new TopicIds(names, resolver), Assignment.EMPTY));
        }
        GroupSpec spec = new GroupSpecImpl(Collections.unmodifiableMap(specs), type, Map.of());
        SubscribedTopicDescriberImpl describer = new SubscribedTopicDescriberImpl(image);
        if (incremental) {
            GroupAssignment first = assignor.assign(spec, describer);
            Map<String, MemberSubscriptionAndAssignmentImpl> next = new HashMap<>();
            Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
            for (String memberId : spec.memberIds()) {
                MemberAssignment ma = first.members().get(memberId);
                Map<Uuid, Set<Integer>> parts = ma == null ? Map.of() : ma.partitions();
                // Through the coordinator's record, as the coordinator replays it.
                CoordinatorRecord rec = GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentRecord("kgviz", memberId, parts);
                Assignment a = Assignment.fromRecord((ConsumerGroupTargetAssignmentMemberValue) rec.value().message());
                for (Map.Entry<Uuid, Set<Integer>> e : a.partitions().entrySet())
                    for (int p : e.getValue()) inverted.computeIfAbsent(e.getKey(), k -> new HashMap<>()).put(p, memberId);
                MemberSubscriptionAndAssignmentImpl old = specs.get(memberId);
                next.put(memberId, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(), old.subscribedTopicIds(), a));
            }
            Set<String> newNames = type == SubscriptionType.HOMOGENEOUS ? new java.util.HashSet<>(topicNames) : sets.get(n - 1);
            next.put("newMember", new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(), new TopicIds(newNames, resolver), Assignment.EMPTY));
            spec = new GroupSpecImpl(Collections.unmodifiableMap(next), type, inverted);
        }

        List<Double> ms = new ArrayList<>();
        List<Double> cpuMs = new ArrayList<>();
        List<Double> threadCpuMs = new ArrayList<>();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        GroupAssignment result = null;
        for (int r = 0; r < warmups + runs; r++) {
            resolver.clear();
            long c0 = Harness.Scale.cpuNanos();
            long tc0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            result = assignor.assign(spec, describer);
            long t1 = System.nanoTime();
            long tc1 = threads.getCurrentThreadCpuTime();
            long c1 = Harness.Scale.cpuNanos();
            if (r >= warmups) {
                ms.add((t1 - t0) / 1e6);
                cpuMs.add((c1 - c0) / 1e6);
                threadCpuMs.add((tc1 - tc0) / 1e6);
            }
        }
        try (PrintWriter w = new PrintWriter(new BufferedWriter(new OutputStreamWriter(new java.io.FileOutputStream(planFile), StandardCharsets.UTF_8)))) {
            for (String memberId : spec.memberIds()) {
                MemberAssignment ma = result.members().get(memberId);
                Map<Uuid, Set<Integer>> parts = ma == null ? Map.of() : ma.partitions();
                CoordinatorRecord rec = GroupCoordinatorRecordHelpers.newConsumerGroupTargetAssignmentRecord("kgviz", memberId, parts);
                StringBuilder sb = new StringBuilder("[").append(Json.quote(memberId)).append(',');
                appendRecord(sb, (ConsumerGroupTargetAssignmentMemberValue) rec.value().message());
                w.println(sb.append(']'));
            }
        }
        System.out.println("{\"assign_ms\":" + ms + ",\"median_ms\":" + Harness.Scale.median(ms)
            + ",\"cpu_ms\":" + cpuMs + ",\"median_cpu_ms\":" + Harness.Scale.median(cpuMs)
            + ",\"thread_cpu_ms\":" + threadCpuMs + ",\"median_thread_cpu_ms\":" + Harness.Scale.median(threadCpuMs) + "}");
    }

    static void main(String mode, String[] args) throws Exception {
        switch (mode) {
            case "server-assign": assignLoop(); break;
            case "server-timeline": timelineLoop(); break;
            case "server-bench": bench(args); break;
            case "server-reconcile": reconcileLoop(); break;
            default: throw new IllegalArgumentException(mode);
        }
    }
}
