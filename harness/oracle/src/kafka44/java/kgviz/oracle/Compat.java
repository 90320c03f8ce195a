package kgviz.oracle;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.timeline.SnapshotRegistry;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;

/** What differs between Kafka 4.1's coordinator API (src/kafka41) and 4.4's: here, 4.4's. */
final class Compat {
    private Compat() {}

    static String version() {
        return AppInfoParser.getVersion();
    }

    static SnapshotRegistry snapshotRegistry() {
        return new SnapshotRegistry(new LogContext());
    }

    static GroupConfigManager groupConfigManager(GroupCoordinatorConfig config, Map<String, Object> props) {
        return new GroupConfigManager(config, ShareGroupConfig.fromProps(props));
    }

    static void withLogContext(GroupCoordinatorShard.Builder b) {
        b.withLogContext(new LogContext());
    }

    /**
     * 4.4's classicGroupJoin takes a flag for a streams group's topology cleanup before its conversion
     * (GroupCoordinatorService.runClassicGroupJoin) and answers TRUE when the join must be run again
     * after that cleanup; kgviz has no streams groups, so the second run sets it.
     */
    static CoordinatorResult<?, CoordinatorRecord> join(GroupCoordinatorShard shard, AuthorizableRequestContext ctx,
                                                       JoinGroupRequestData req, CompletableFuture<JoinGroupResponseData> f) {
        CoordinatorResult<Boolean, CoordinatorRecord> r = shard.classicGroupJoin(ctx, req, f, false);
        if (Boolean.TRUE.equals(r.response()) && !f.isDone()) {
            return shard.classicGroupJoin(ctx, req, f, true);
        }
        return r;
    }

    /** TxnOffsetCommit's generation field (4.4 (a member epoch of a consumer group too): setGenerationIdOrMemberEpoch). */
    static void setGeneration(TxnOffsetCommitRequestData req, int generation) {
        req.setGenerationIdOrMemberEpoch(generation);
    }
}
