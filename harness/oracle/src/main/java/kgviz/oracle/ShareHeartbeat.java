package kgviz.oracle;

import static kgviz.oracle.Oracle.list;
import static kgviz.oracle.Oracle.num;
import static kgviz.oracle.Oracle.str;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.server.share.persister.InitializeShareGroupStateParameters;
import org.apache.kafka.server.share.persister.PartitionStateData;
import org.apache.kafka.server.share.persister.TopicData;

/**
 * ShareGroupHeartbeat (KIP-932) on Kafka's GroupCoordinatorShard, for the share groups kgviz's worlds run
 * (a request line {@code "api":"ShareGroupHeartbeat"}: groupId, memberId, memberEpoch, topics or none).
 *
 * <p>GroupMetadataManager.shareGroupHeartbeat answers with the response and, when the group subscribes to
 * share-partitions whose state the share coordinator has not yet initialized, the parameters of that
 * initialization (the persister's InitializeShareGroupState). The broker's GroupCoordinatorService sends
 * them to the share coordinator and, once it answered, tells the shard
 * (GroupCoordinatorShard.initializeShareGroupState); the oracle has no share coordinator and does that at
 * once, as if the persister had answered in no time. ShareFetch and ShareAcknowledge are not the group
 * coordinator's (SharePartition is in Kafka's broker, kafka core/server): not here.
 *
 * <p>Member ids are the client's (ShareGroupHeartbeat version 1): no translation.
 */
final class ShareHeartbeat {
    private final GroupCoordinatorShard shard;
    private final Shard.Host host;
    private final Map<Uuid, String> topicNames;
    /** the share groups seen, for the members the timers remove */
    final Set<String> groups = new HashSet<>();

    ShareHeartbeat(GroupCoordinatorShard shard, Shard.Host host, Map<Uuid, String> topicNames) {
        this.shard = shard;
        this.host = host;
        this.topicNames = topicNames;
    }

    void handle(long id, String client, Map<String, Object> m) {
        String groupId = str(m, "groupId");
        groups.add(groupId);
        ShareGroupHeartbeatRequestData req = new ShareGroupHeartbeatRequestData().setGroupId(groupId)
            .setMemberId(str(m, "memberId")).setMemberEpoch((int) num(m, "memberEpoch", 0));
        if (m.get("topics") != null) {
            List<String> ts = new ArrayList<>();
            for (Object t : list(m.get("topics"))) ts.add((String) t);
            req.setSubscribedTopicNames(ts);
        } else {
            req.setSubscribedTopicNames(null);
        }
        CoordinatorResult<Map.Entry<ShareGroupHeartbeatResponseData, Optional<InitializeShareGroupStateParameters>>, CoordinatorRecord> r =
            shard.shareGroupHeartbeat(host.context(ApiKeys.SHARE_GROUP_HEARTBEAT, client), req);
        host.apply(r);
        ShareGroupHeartbeatResponseData resp = r.response().getKey();
        Optional<InitializeShareGroupStateParameters> init = r.response().getValue();
        if (init.isPresent()) initialize(groupId, init.get());
        StringBuilder b = new StringBuilder("\"error\":").append(resp.errorCode())
            .append(",\"message\":").append(Json.quote(resp.errorMessage() == null ? "" : resp.errorMessage()))
            .append(",\"memberId\":").append(Json.quote(resp.memberId() == null ? "" : resp.memberId()))
            .append(",\"memberEpoch\":").append(resp.memberEpoch())
            .append(",\"heartbeatIntervalMs\":").append(resp.heartbeatIntervalMs());
        if (resp.assignment() != null) {
            List<TopicPartition> tps = new ArrayList<>();
            for (ShareGroupHeartbeatResponseData.TopicPartitions tp : resp.assignment().topicPartitions()) {
                String name = topicNames.getOrDefault(tp.topicId(), tp.topicId().toString());
                for (int p : tp.partitions()) tps.add(new TopicPartition(name, p));
            }
            b.append(",\"assignment\":").append(Shard.tpsJson(Shard.sorted(tps)));
        }
        if (init.isPresent()) {
            // the share-partitions whose state the share coordinator is asked to initialize
            List<TopicPartition> tps = new ArrayList<>();
            for (TopicData<PartitionStateData> t : init.get().groupTopicPartitionData().topicsData()) {
                String name = topicNames.getOrDefault(t.topicId(), t.topicId().toString());
                for (PartitionStateData d : t.partitions()) tps.add(new TopicPartition(name, d.partition()));
            }
            b.append(",\"initialize\":").append(Shard.tpsJson(Shard.sorted(tps)));
        }
        host.done(id, "ShareGroupHeartbeat", b.toString());
    }

    /** The share coordinator answered the initialization at once: GroupCoordinatorShard.initializeShareGroupState. */
    private void initialize(String groupId, InitializeShareGroupStateParameters p) {
        Map<Uuid, Set<Integer>> parts = new HashMap<>();
        for (TopicData<PartitionStateData> t : p.groupTopicPartitionData().topicsData()) {
            Set<Integer> ps = parts.computeIfAbsent(t.topicId(), k -> new HashSet<>());
            for (PartitionStateData d : t.partitions()) ps.add(d.partition());
        }
        host.apply(shard.initializeShareGroupState(groupId, parts));
    }

    /** The share groups' member ids now. */
    void members(Set<String> into, long offset) {
        if (groups.isEmpty()) return;
        try {
            for (ShareGroupDescribeResponseData.DescribedGroup g : shard.shareGroupDescribe(new ArrayList<>(groups), offset)) {
                if (g.errorCode() != 0) continue;
                for (ShareGroupDescribeResponseData.Member mm : g.members()) into.add(mm.memberId());
            }
        } catch (RuntimeException e) {
            // no share group (yet)
        }
    }
}
