package kgviz.oracle;

import static kgviz.oracle.Oracle.list;
import static kgviz.oracle.Oracle.num;
import static kgviz.oracle.Oracle.obj;
import static kgviz.oracle.Oracle.str;

import java.lang.reflect.Method;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.common.runtime.CoordinatorExecutor;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.timeline.SnapshotRegistry;

/**
 * One GroupCoordinatorShard (the partition of __consumer_offsets that holds the group) with what the
 * coordinator runtime gives it: a clock that moves only when told, a {@link StepTimer}, a
 * SnapshotRegistry, a MetadataImage with the world's topics, and the replay of every record it writes
 * (the runtime writes and replays them; the oracle treats each write as committed at once).
 *
 * <p>Member ids: kgviz's are not Kafka's (Kafka's are {@code <client.id>-<uuid>}). A request names
 * kgviz's ids; the oracle translates them with what it learnt from earlier answers (a JoinGroup line
 * carries {@code "kgvizMemberId"}, the id kgviz's coordinator gave in its answer) and writes its
 * answers with kgviz's ids again; an id it cannot translate is written {@code "kafka:<id>"}.
 */
final class Shard {
    static final class StepTime implements Time {
        long now;

        @Override public long milliseconds() { return now; }
        @Override public long nanoseconds() { return now * 1_000_000L; }
        @Override public void sleep(long ms) { now += ms; }
        @Override public void waitObject(Object o, java.util.function.Supplier<Boolean> c, long d) {
            throw new UnsupportedOperationException("the oracle never waits");
        }
    }

    private final StepTime time = new StepTime();
    private final StepTimer timer = new StepTimer(time);
    private static final long NO_PID = -1L; // RecordBatch.NO_PRODUCER_ID
    private static final short NO_EPOCH = -1; // RecordBatch.NO_PRODUCER_EPOCH
    private final SnapshotRegistry snapshots = Compat.snapshotRegistry();
    private final GroupCoordinatorShard shard;
    private final String group;
    private final boolean effects;
    private long offset;
    private long tickSeq = -1; // >= 0 while a tick's requests run: only timeouts scheduled since fire
    private int recordsWritten;

    private final Map<String, Uuid> topicIds = new HashMap<>();
    private final Map<Uuid, String> topicNames = new HashMap<>();
    // kgviz's member id -> Kafka's, and back
    private final Map<String, String> toKafka = new HashMap<>();
    private final Map<String, String> toKgviz = new HashMap<>();

    // completed this step: request id -> response JSON, in completion order
    private final List<String> completed = new ArrayList<>();
    private final List<String> fired = new ArrayList<>();

    /** What a request handler in another file (ShareHeartbeat) needs of the shard's runtime. */
    interface Host {
        RequestContext context(ApiKeys api, String clientId);
        void apply(CoordinatorResult<?, CoordinatorRecord> r);
        void done(long id, String api, String body);
    }

    private final ShareHeartbeat share;

    Shard(Map<String, Object> init) throws Exception {
        group = str(init, "group");
        effects = !Boolean.FALSE.equals(init.get("effects"));
        Map<String, Object> props = new HashMap<>();
        // kgviz's defaults, in ms (harness/oracle/README.md)
        for (Map.Entry<String, Object> e : obj(init.get("config")).entrySet()) props.put(e.getKey(), String.valueOf(e.getValue()));
        GroupCoordinatorConfig config = GroupCoordinatorConfig.fromProps(props);
        GroupConfigManager gcm = Compat.groupConfigManager(config, props);
        CoordinatorExecutor<CoordinatorRecord> executor = new CoordinatorExecutor<>() {
            @Override public <R> boolean schedule(String key, TaskRunnable<R> task, TaskOperation<CoordinatorRecord, R> op) {
                throw new UnsupportedOperationException("the oracle runs no background task (" + key + ")");
            }
            @Override public boolean isScheduled(String key) { return false; }
            @Override public void cancel(String key) {}
        };
        GroupCoordinatorShard.Builder builder = new GroupCoordinatorShard.Builder(config, gcm);
        Compat.withLogContext(builder);
        builder.withTime(time);
        builder.withTimer(timer);
        builder.withExecutor(executor);
        builder.withCoordinatorMetrics(new GroupCoordinatorMetrics());
        builder.withTopicPartition(new TopicPartition("__consumer_offsets", 0));
        builder.withSnapshotRegistry(snapshots);
        // no authorizer (an Optional<Plugin<Authorizer>>; by name, its type moved between versions)
        for (Method m : builder.getClass().getMethods()) {
            if (m.getName().equals("withAuthorizerPlugin") && m.getParameterCount() == 1) m.invoke(builder, Optional.empty());
        }
        shard = builder.build();
        share = new ShareHeartbeat(shard, new Host() {
            @Override public RequestContext context(ApiKeys api, String clientId) { return Shard.this.context(api, clientId); }
            @Override public void apply(CoordinatorResult<?, CoordinatorRecord> r) { Shard.this.apply(r, NO_PID, NO_EPOCH); }
            @Override public void done(long id, String api, String body) { Shard.this.done(id, api, body); }
        }, topicNames);

        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        for (Object o : list(init.get("topics"))) {
            Map<String, Object> t = obj(o);
            String name = str(t, "name");
            // the caller's topic id (kgviz's: the server-side assignors order topics by id), else a fixed one
            Uuid id = t.get("id") != null ? Uuid.fromString(str(t, "id"))
                : new Uuid(0x6b67766900000000L | (name.hashCode() & 0xffffffffL), name.length() + 1);
            topicIds.put(name, id);
            topicNames.put(id, name);
            delta.replay(new TopicRecord().setName(name).setTopicId(id));
            for (int p = 0; p < num(t, "partitions", 1); p++) {
                delta.replay(new PartitionRecord().setTopicId(id).setPartitionId(p).setReplicas(List.of(1))
                    .setIsr(List.of(1)).setLeader(1).setLeaderEpoch(0).setPartitionEpoch(0));
            }
        }
        MetadataImage image = delta.apply(MetadataProvenance.EMPTY);
        loaded(image);
        snapshots.idempotentCreateSnapshot(offset);
    }

    /** shard.onLoaded(image): a MetadataImage up to 4.1, a CoordinatorMetadataImage wrapping it after. */
    private void loaded(MetadataImage image) throws Exception {
        for (Method m : GroupCoordinatorShard.class.getMethods()) {
            if (!m.getName().equals("onLoaded") || m.getParameterCount() != 1) continue;
            Class<?> p = m.getParameterTypes()[0];
            if (p.isInstance(image)) {
                m.invoke(shard, image);
                return;
            }
            for (String wrapper : new String[] {
                "org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage",
                "org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage"}) {
                try {
                    Class<?> w = Class.forName(wrapper);
                    Object wrapped = w.getConstructor(MetadataImage.class).newInstance(image);
                    if (p.isInstance(wrapped)) {
                        m.invoke(shard, wrapped);
                        return;
                    }
                } catch (ClassNotFoundException e) {
                    // not this version's
                }
            }
        }
        throw new IllegalStateException("GroupCoordinatorShard.onLoaded: no known metadata image type");
    }

    void step(String op, Map<String, Object> m, StringBuilder out) {
        switch (op) {
            case "advance":
                // {"fire":false}: the tick begins; its requests come before the timeouts due at it (World.Step)
                time.now = Math.max(time.now, num(m, "now", time.now));
                tickSeq = Boolean.FALSE.equals(m.get("fire")) ? timer.nextSeq() : -1;
                break;
            case "req":
                request(m);
                break;
            case "marker":
                shard.replayEndTransactionMarker(num(m, "pid", 0), (short) num(m, "epoch", 0),
                    Boolean.TRUE.equals(m.get("commit")) ? TransactionResult.COMMIT : TransactionResult.ABORT);
                break;
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
        expire(tickSeq);
        out.append("{\"now\":").append(time.now).append(",\"resp\":[");
        for (int k = 0; k < completed.size(); k++) out.append(k > 0 ? "," : "").append(completed.get(k));
        out.append("],\"fired\":[");
        for (int k = 0; k < fired.size(); k++) out.append(k > 0 ? "," : "").append(fired.get(k));
        out.append("],\"records\":").append(recordsWritten).append('}');
        completed.clear();
        fired.clear();
        recordsWritten = 0;
    }

    /** Runs every timeout due now (those a request scheduled with no delay too). */
    private void expire(long sinceSeq) {
        StepTimerBase.Task t;
        while ((t = timer.pollExpired(time.now, sinceSeq)) != null) {
            Set<String> before = effects ? members() : Set.of();
            CoordinatorResult<Void, CoordinatorRecord> r;
            try {
                r = t.op.get();
            } catch (Throwable e) {
                fired.add("{\"key\":" + Json.quote(shortKey(t.key)) + ",\"error\":" + Json.quote(e.toString()) + "}");
                continue;
            }
            apply(r, NO_PID, NO_EPOCH);
            if (!effects) continue;
            Set<String> after = members();
            StringBuilder b = new StringBuilder("{\"key\":").append(Json.quote(shortKey(t.key))).append(",\"removed\":[");
            int n = 0;
            for (String id : before) {
                if (!after.contains(id)) b.append(n++ > 0 ? "," : "").append(Json.quote(kgviz(id)));
            }
            fired.add(b.append("]}").toString());
        }
    }

    /** A timer key without the group and with the member id translated: "heartbeat C1-1". */
    private String shortKey(String key) {
        String k = key.replace("-" + group + "-", " ").replace("-" + group, "");
        int sp = k.indexOf(' ');
        return sp < 0 ? k : k.substring(0, sp + 1) + kgviz(k.substring(sp + 1));
    }

    /** The group's member ids now (classic or consumer group). */
    private Set<String> members() {
        Set<String> ids = new TreeSet<>();
        try {
            for (DescribeGroupsResponseData.DescribedGroup g : shard.describeGroups(context(ApiKeys.DESCRIBE_GROUPS, ""), List.of(group), offset)) {
                for (DescribeGroupsResponseData.DescribedGroupMember mm : g.members()) ids.add(mm.memberId());
            }
        } catch (Throwable e) {
            // not a classic group
        }
        try {
            for (ConsumerGroupDescribeResponseData.DescribedGroup g : shard.consumerGroupDescribe(List.of(group), offset)) {
                if (g.errorCode() != 0) continue;
                for (ConsumerGroupDescribeResponseData.Member mm : g.members()) ids.add(mm.memberId());
            }
        } catch (Throwable e) {
            // not a consumer group
        }
        share.members(ids, offset);
        return ids;
    }

    /** Writes a result's records: replayed into the shard (unless the result says not to), committed at once. */
    private void apply(CoordinatorResult<?, CoordinatorRecord> r, long pid, short epoch) {
        if (r == null) return;
        if (r == null) return;
        for (CoordinatorRecord rec : r.records()) {
            if (r.replayRecords()) shard.replay(offset, pid, epoch, rec);
            offset++;
            recordsWritten++;
        }
        snapshots.idempotentCreateSnapshot(offset);
        snapshots.deleteSnapshotsUpTo(offset);
        if (r.appendFuture() != null) r.appendFuture().complete(null);
    }

    private RequestContext context(ApiKeys api, String clientId) {
        short version = api.latestVersion();
        // OffsetCommit v10 and OffsetFetch v10 name topics by id; kgviz's name them
        if (api == ApiKeys.OFFSET_COMMIT) version = (short) Math.min(version, 9);
        if (api == ApiKeys.OFFSET_FETCH) version = (short) Math.min(version, 9);
        try {
            return new RequestContext(new RequestHeader(api, version, clientId, 0), "1", InetAddress.getLoopbackAddress(),
                KafkaPrincipal.ANONYMOUS, ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT),
                SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, false);
        } catch (RuntimeException e) {
            throw new IllegalStateException("RequestContext for " + api, e);
        }
    }

    private String kafka(String kgvizId) {
        if (kgvizId == null || kgvizId.isEmpty()) return kgvizId == null ? "" : kgvizId;
        return toKafka.getOrDefault(kgvizId, kgvizId);
    }

    private String kgviz(String kafkaId) {
        if (kafkaId == null || kafkaId.isEmpty()) return kafkaId == null ? "" : kafkaId;
        String id = toKgviz.get(kafkaId);
        if (id != null) return id;
        return toKafka.containsKey(kafkaId) || kafkaId.startsWith("kafka:") ? kafkaId : "kafka:" + kafkaId;
    }

    private void learn(String kgvizId, String kafkaId) {
        if (kgvizId == null || kgvizId.isEmpty() || kafkaId == null || kafkaId.isEmpty()) return;
        toKafka.put(kgvizId, kafkaId);
        toKgviz.put(kafkaId, kgvizId);
    }

    private void done(long id, String api, String body) {
        completed.add("{\"id\":" + id + ",\"api\":\"" + api + "\"," + body + "}");
    }

    private void request(Map<String, Object> m) {
        long id = num(m, "id", 0);
        String api = str(m, "api");
        String client = str(m, "client");
        try {
            switch (api) {
                case "JoinGroup": join(id, client, m, false); break;
                case "SyncGroup": sync(id, client, m); break;
                case "Heartbeat": heartbeat(id, client, m); break;
                case "LeaveGroup": leave(id, client, m); break;
                case "OffsetCommit": commit(id, client, m); break;
                case "OffsetFetch": fetch(id, m); break;
                case "TxnOffsetCommit": txnCommit(id, client, m); break;
                case "ConsumerGroupHeartbeat": consumerHeartbeat(id, client, m); break;
                case "ShareGroupHeartbeat": share.handle(id, client, m); break;
                default: throw new IllegalArgumentException("unknown api " + api);
            }
        } catch (ApiException e) {
            done(id, api, "\"error\":" + Errors.forException(e).code() + ",\"message\":" + Json.quote(String.valueOf(e.getMessage())));
        } catch (RuntimeException e) {
            done(id, api, "\"error\":" + Errors.UNKNOWN_SERVER_ERROR.code() + ",\"message\":" + Json.quote(e.toString()));
        }
    }

    // ---- classic protocol ----

    private static byte[] subscription(Map<String, Object> p) {
        List<String> topics = new ArrayList<>();
        for (Object t : list(p.get("topics"))) topics.add((String) t);
        List<TopicPartition> owned = tps(p.get("owned"));
        ByteBuffer userData = null;
        if (p.get("userData") != null) {
            userData = ByteBuffer.wrap(String.valueOf(p.get("userData")).getBytes(StandardCharsets.UTF_8));
        }
        ConsumerPartitionAssignor.Subscription s = new ConsumerPartitionAssignor.Subscription(topics, userData, owned,
            (int) num(p, "generation", -1), Optional.empty());
        return Oracle.bytes(ConsumerProtocol.serializeSubscription(s));
    }

    static List<TopicPartition> tps(Object o) {
        List<TopicPartition> out = new ArrayList<>();
        for (Object e : list(o)) {
            Map<String, Object> tp = obj(e);
            for (Object p : list(tp.get("p"))) out.add(new TopicPartition(str(tp, "t"), ((Number) p).intValue()));
        }
        return out;
    }

    static String tpsJson(List<TopicPartition> tps) {
        Map<String, List<Integer>> by = new LinkedHashMap<>();
        for (TopicPartition tp : tps) by.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
        StringBuilder b = new StringBuilder("[");
        int n = 0;
        for (Map.Entry<String, List<Integer>> e : by.entrySet()) {
            List<Integer> ps = e.getValue();
            ps.sort(null);
            b.append(n++ > 0 ? "," : "").append("{\"t\":").append(Json.quote(e.getKey())).append(",\"p\":").append(ps.toString().replace(" ", "")).append('}');
        }
        return b.append(']').toString();
    }

    private void join(long id, String client, Map<String, Object> m, boolean retried) {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        for (Object o : list(m.get("protocols"))) {
            Map<String, Object> p = obj(o);
            protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName(str(p, "name")).setMetadata(subscription(p)));
        }
        String instance = str(m, "instanceId");
        JoinGroupRequestData req = new JoinGroupRequestData().setGroupId(str(m, "groupId"))
            .setSessionTimeoutMs((int) num(m, "sessionTimeoutMs", 0)).setRebalanceTimeoutMs((int) num(m, "rebalanceTimeoutMs", 0))
            .setMemberId(retried ? str(m, "kafkaMemberId") : kafka(str(m, "memberId")))
            .setGroupInstanceId(instance.isEmpty() ? null : instance).setProtocolType(str(m, "protocolType"))
            .setProtocols(protocols).setReason(m.get("reason") == null ? null : str(m, "reason"));
        CompletableFuture<JoinGroupResponseData> f = new CompletableFuture<>();
        String kgvizId = str(m, "kgvizMemberId");
        f.whenComplete((r, e) -> {
            if (e != null) {
                done(id, "JoinGroup", "\"error\":" + Errors.forException(e).code());
                return;
            }
            if (r.errorCode() == Errors.MEMBER_ID_REQUIRED.code() && !retried) {
                // KIP-394: the client joins again at once with the id it was given; kgviz has no such round
                // trip (docs/simplifications.md) and its answer is compared with the second one
                learn(kgvizId, r.memberId()); // its join may still be pending when a timeout removes it
                Map<String, Object> again = new HashMap<>(m);
                again.put("kafkaMemberId", r.memberId());
                memberIdRequired.add(id);
                join(id, client, again, true);
                return;
            }
            if (r.errorCode() == 0 || !r.memberId().isEmpty()) learn(kgvizId, r.memberId());
            StringBuilder b = new StringBuilder();
            b.append("\"error\":").append(r.errorCode()).append(",\"generation\":").append(r.generationId())
                .append(",\"protocolType\":").append(Json.quote(String.valueOf(r.protocolType())))
                .append(",\"protocolName\":").append(Json.quote(String.valueOf(r.protocolName())))
                .append(",\"leader\":").append(Json.quote(kgviz(r.leader())))
                .append(",\"memberId\":").append(Json.quote(kgviz(r.memberId())))
                .append(",\"kafkaMemberId\":").append(Json.quote(r.memberId()))
                .append(",\"skipAssignment\":").append(r.skipAssignment())
                .append(",\"memberIdRequired\":").append(memberIdRequired.remove(id));
            b.append(",\"members\":[");
            int n = 0;
            for (JoinGroupResponseData.JoinGroupResponseMember mm : r.members()) {
                b.append(n++ > 0 ? "," : "").append("{\"memberId\":").append(Json.quote(kgviz(mm.memberId())))
                    .append(",\"instanceId\":").append(Json.quote(mm.groupInstanceId() == null ? "" : mm.groupInstanceId()));
                try {
                    ConsumerPartitionAssignor.Subscription s = ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(mm.metadata()));
                    b.append(",\"topics\":").append(Json.quote(String.join(",", s.topics())))
                        .append(",\"owned\":").append(tpsJson(s.ownedPartitions()))
                        .append(",\"generation\":").append(s.generationId().orElse(-1));
                } catch (RuntimeException ex) {
                    b.append(",\"metadataError\":").append(Json.quote(ex.toString()));
                }
                b.append('}');
            }
            b.append(']');
            done(id, "JoinGroup", b.toString());
        });
        apply(Compat.join(shard, context(ApiKeys.JOIN_GROUP, client), req, f), NO_PID, NO_EPOCH);
        if (!instance.isEmpty() && !f.isDone() && !kgvizId.isEmpty()) {
            // a static member's id is given at once, its answer may come later: learn it by instance id
            try {
                for (DescribeGroupsResponseData.DescribedGroup g : shard.describeGroups(context(ApiKeys.DESCRIBE_GROUPS, ""), List.of(group), offset)) {
                    for (DescribeGroupsResponseData.DescribedGroupMember mm : g.members()) {
                        if (instance.equals(mm.groupInstanceId())) learn(kgvizId, mm.memberId());
                    }
                }
            } catch (RuntimeException e) {
                // not a classic group
            }
        }
    }

    private final Set<Long> memberIdRequired = new HashSet<>();

    private void sync(long id, String client, Map<String, Object> m) {
        List<SyncGroupRequestData.SyncGroupRequestAssignment> as = new ArrayList<>();
        for (Object o : list(m.get("assignments"))) {
            Map<String, Object> a = obj(o);
            as.add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(kafka(str(a, "memberId")))
                .setAssignment(Oracle.bytes(ConsumerProtocol.serializeAssignment(
                    new ConsumerPartitionAssignor.Assignment(tps(a.get("partitions")))))));
        }
        String instance = str(m, "instanceId");
        SyncGroupRequestData req = new SyncGroupRequestData().setGroupId(str(m, "groupId"))
            .setGenerationId((int) num(m, "generation", -1)).setMemberId(kafka(str(m, "memberId")))
            .setGroupInstanceId(instance.isEmpty() ? null : instance)
            .setProtocolType(str(m, "protocolType")).setProtocolName(str(m, "protocolName")).setAssignments(as);
        CompletableFuture<SyncGroupResponseData> f = new CompletableFuture<>();
        f.whenComplete((r, e) -> {
            if (e != null) {
                done(id, "SyncGroup", "\"error\":" + Errors.forException(e).code());
                return;
            }
            String assignment = "[]";
            if (r.errorCode() == 0 && r.assignment() != null && r.assignment().length > 0) {
                assignment = tpsJson(ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(r.assignment())).partitions());
            }
            done(id, "SyncGroup", "\"error\":" + r.errorCode() + ",\"protocolType\":" + Json.quote(String.valueOf(r.protocolType()))
                + ",\"protocolName\":" + Json.quote(String.valueOf(r.protocolName())) + ",\"assignment\":" + assignment);
        });
        apply(shard.classicGroupSync(context(ApiKeys.SYNC_GROUP, client), req, f), NO_PID, NO_EPOCH);
    }

    private void heartbeat(long id, String client, Map<String, Object> m) {
        String instance = str(m, "instanceId");
        HeartbeatRequestData req = new HeartbeatRequestData().setGroupId(str(m, "groupId"))
            .setGenerationId((int) num(m, "generation", -1)).setMemberId(kafka(str(m, "memberId")))
            .setGroupInstanceId(instance.isEmpty() ? null : instance);
        CoordinatorResult<HeartbeatResponseData, CoordinatorRecord> r = shard.classicGroupHeartbeat(context(ApiKeys.HEARTBEAT, client), req);
        apply(r, NO_PID, NO_EPOCH);
        done(id, "Heartbeat", "\"error\":" + r.response().errorCode());
    }

    private void leave(long id, String client, Map<String, Object> m) {
        List<LeaveGroupRequestData.MemberIdentity> ms = new ArrayList<>();
        for (Object o : list(m.get("members"))) {
            Map<String, Object> mi = obj(o);
            String instance = str(mi, "instanceId");
            ms.add(new LeaveGroupRequestData.MemberIdentity().setMemberId(kafka(str(mi, "memberId")))
                .setGroupInstanceId(instance.isEmpty() ? null : instance).setReason(str(mi, "reason")));
        }
        LeaveGroupRequestData req = new LeaveGroupRequestData().setGroupId(str(m, "groupId")).setMembers(ms);
        CoordinatorResult<LeaveGroupResponseData, CoordinatorRecord> r = shard.classicGroupLeave(context(ApiKeys.LEAVE_GROUP, client), req);
        apply(r, NO_PID, NO_EPOCH);
        StringBuilder b = new StringBuilder("\"error\":").append(r.response().errorCode()).append(",\"members\":[");
        int n = 0;
        for (LeaveGroupResponseData.MemberResponse mr : r.response().members()) {
            b.append(n++ > 0 ? "," : "").append("{\"memberId\":").append(Json.quote(kgviz(mr.memberId())))
                .append(",\"instanceId\":").append(Json.quote(mr.groupInstanceId() == null ? "" : mr.groupInstanceId()))
                .append(",\"error\":").append(mr.errorCode()).append('}');
        }
        done(id, "LeaveGroup", b.append(']').toString());
    }

    // ---- offsets ----

    private static <T> void byTopic(Object offsets, BiConsumer<String, List<Map<String, Object>>> f) {
        Map<String, List<Map<String, Object>>> by = new LinkedHashMap<>();
        for (Object o : list(offsets)) {
            Map<String, Object> po = obj(o);
            by.computeIfAbsent(str(po, "t"), k -> new ArrayList<>()).add(po);
        }
        by.forEach(f);
    }

    private void commit(long id, String client, Map<String, Object> m) {
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> topics = new ArrayList<>();
        byTopic(m.get("offsets"), (t, ps) -> {
            List<OffsetCommitRequestData.OffsetCommitRequestPartition> parts = new ArrayList<>();
            for (Map<String, Object> p : ps) {
                parts.add(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex((int) num(p, "p", 0))
                    .setCommittedOffset(num(p, "o", 0)));
            }
            topics.add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(t).setPartitions(parts));
        });
        String instance = str(m, "instanceId");
        OffsetCommitRequestData req = new OffsetCommitRequestData().setGroupId(str(m, "groupId"))
            .setGenerationIdOrMemberEpoch((int) num(m, "generation", -1)).setMemberId(kafka(str(m, "memberId")))
            .setGroupInstanceId(instance.isEmpty() ? null : instance).setTopics(topics);
        CoordinatorResult<OffsetCommitResponseData, CoordinatorRecord> r = shard.commitOffset(context(ApiKeys.OFFSET_COMMIT, client), req);
        apply(r, NO_PID, NO_EPOCH);
        int code = 0;
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : r.response().topics()) {
            for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
                if (code == 0) code = p.errorCode();
            }
        }
        done(id, "OffsetCommit", "\"error\":" + code);
    }

    private void txnCommit(long id, String client, Map<String, Object> m) {
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> topics = new ArrayList<>();
        byTopic(m.get("offsets"), (t, ps) -> {
            List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition> parts = new ArrayList<>();
            for (Map<String, Object> p : ps) {
                parts.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition().setPartitionIndex((int) num(p, "p", 0))
                    .setCommittedOffset(num(p, "o", 0)));
            }
            topics.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(t).setPartitions(parts));
        });
        String instance = str(m, "instanceId");
        long pid = num(m, "pid", -1);
        short epoch = (short) num(m, "epoch", -1);
        TxnOffsetCommitRequestData req = new TxnOffsetCommitRequestData().setTransactionalId(str(m, "transactionalId"))
            .setGroupId(str(m, "groupId")).setProducerId(pid).setProducerEpoch(epoch)
            .setMemberId(kafka(str(m, "memberId"))).setGroupInstanceId(instance.isEmpty() ? null : instance).setTopics(topics);
        Compat.setGeneration(req, (int) num(m, "generation", -1));
        CoordinatorResult<TxnOffsetCommitResponseData, CoordinatorRecord> r = shard.commitTransactionalOffset(context(ApiKeys.TXN_OFFSET_COMMIT, client), req);
        apply(r, pid, epoch);
        int code = 0;
        for (TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic t : r.response().topics()) {
            for (TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition p : t.partitions()) {
                if (code == 0) code = p.errorCode();
            }
        }
        done(id, "TxnOffsetCommit", "\"error\":" + code);
    }

    private void fetch(long id, Map<String, Object> m) {
        List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics = new ArrayList<>();
        byTopic(m.get("partitions"), (t, ps) -> {
            List<Integer> idx = new ArrayList<>();
            for (Map<String, Object> p : ps) idx.add((int) num(p, "p", 0));
            topics.add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(t).setPartitionIndexes(idx));
        });
        String member = str(m, "memberId");
        OffsetFetchRequestData.OffsetFetchRequestGroup g = new OffsetFetchRequestData.OffsetFetchRequestGroup()
            .setGroupId(str(m, "groupId")).setMemberId(member.isEmpty() ? null : kafka(member))
            .setMemberEpoch((int) num(m, "memberEpoch", -1)).setTopics(topics);
        // OffsetMetadataManager.fetchOffsets: requireStable is a read at the last written offset (Long.MAX_VALUE)
        OffsetFetchResponseData.OffsetFetchResponseGroup r = shard.fetchOffsets(g,
            Boolean.TRUE.equals(m.get("requireStable")) ? Long.MAX_VALUE : offset);
        StringBuilder b = new StringBuilder("\"error\":").append(r.errorCode()).append(",\"offsets\":[");
        int n = 0;
        for (OffsetFetchResponseData.OffsetFetchResponseTopics t : r.topics()) {
            for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                b.append(n++ > 0 ? "," : "").append("{\"t\":").append(Json.quote(t.name())).append(",\"p\":").append(p.partitionIndex())
                    .append(",\"o\":").append(p.committedOffset()).append(",\"error\":").append(p.errorCode()).append('}');
            }
        }
        done(id, "OffsetFetch", b.append(']').toString());
    }

    // ---- the consumer group protocol (KIP-848) ----

    private void consumerHeartbeat(long id, String client, Map<String, Object> m) {
        ConsumerGroupHeartbeatRequestData req = new ConsumerGroupHeartbeatRequestData().setGroupId(str(m, "groupId"))
            .setMemberId(str(m, "memberId")).setMemberEpoch((int) num(m, "memberEpoch", 0))
            .setInstanceId(m.get("instanceId") == null || str(m, "instanceId").isEmpty() ? null : str(m, "instanceId"))
            .setRackId(m.get("rackId") == null || str(m, "rackId").isEmpty() ? null : str(m, "rackId"))
            .setRebalanceTimeoutMs((int) num(m, "rebalanceTimeoutMs", -1))
            .setServerAssignor(m.get("assignor") == null || str(m, "assignor").isEmpty() ? null : str(m, "assignor"));
        if (m.get("topics") != null) {
            List<String> ts = new ArrayList<>();
            for (Object t : list(m.get("topics"))) ts.add((String) t);
            req.setSubscribedTopicNames(ts);
        } else {
            req.setSubscribedTopicNames(null);
        }
        if (m.get("owned") != null) {
            List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned = new ArrayList<>();
            for (Object o : list(m.get("owned"))) {
                Map<String, Object> tp = obj(o);
                List<Integer> ps = new ArrayList<>();
                for (Object p : list(tp.get("p"))) ps.add(((Number) p).intValue());
                owned.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(topicIds.getOrDefault(str(tp, "t"), Uuid.ZERO_UUID))
                    .setPartitions(ps));
            }
            req.setTopicPartitions(owned);
        } else {
            req.setTopicPartitions(null);
        }
        CoordinatorResult<ConsumerGroupHeartbeatResponseData, CoordinatorRecord> r = shard.consumerGroupHeartbeat(context(ApiKeys.CONSUMER_GROUP_HEARTBEAT, client), req);
        apply(r, NO_PID, NO_EPOCH);
        ConsumerGroupHeartbeatResponseData resp = r.response();
        StringBuilder b = new StringBuilder("\"error\":").append(resp.errorCode())
            .append(",\"message\":").append(Json.quote(resp.errorMessage() == null ? "" : resp.errorMessage()))
            .append(",\"memberId\":").append(Json.quote(resp.memberId() == null ? "" : resp.memberId()))
            .append(",\"memberEpoch\":").append(resp.memberEpoch())
            .append(",\"heartbeatIntervalMs\":").append(resp.heartbeatIntervalMs());
        if (resp.assignment() != null) {
            List<TopicPartition> tps = new ArrayList<>();
            for (ConsumerGroupHeartbeatResponseData.TopicPartitions tp : resp.assignment().topicPartitions()) {
                String name = topicNames.getOrDefault(tp.topicId(), tp.topicId().toString());
                for (int p : tp.partitions()) tps.add(new TopicPartition(name, p));
            }
            b.append(",\"assignment\":").append(tpsJson(sorted(tps)));
        }
        done(id, "ConsumerGroupHeartbeat", b.toString());
    }

    static List<TopicPartition> sorted(List<TopicPartition> tps) {
        tps.sort((a, c) -> a.topic().equals(c.topic()) ? Integer.compare(a.partition(), c.partition()) : a.topic().compareTo(c.topic()));
        return tps;
    }

    @SuppressWarnings("unused")
    private static final ConsumerGroupMetadata UNUSED = null;
}
