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
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.LogContext;

/** What differs between Kafka 4.1's coordinator API and 4.4's (src/kafka44): here, 4.1's. */
final class Compat {
    private Compat() {}

    static String version() {
        return AppInfoParser.getVersion();
    }

    static SnapshotRegistry snapshotRegistry() {
        return new SnapshotRegistry(new LogContext());
    }

    static GroupConfigManager groupConfigManager(GroupCoordinatorConfig config, Map<String, Object> props) {
        return new GroupConfigManager(config.extractConsumerGroupConfigMap());
    }

    static void withLogContext(GroupCoordinatorShard.Builder b) {
        b.withLogContext(new LogContext());
    }

    static CoordinatorResult<?, CoordinatorRecord> join(GroupCoordinatorShard shard, AuthorizableRequestContext ctx,
                                                       JoinGroupRequestData req, CompletableFuture<JoinGroupResponseData> f) {
        return shard.classicGroupJoin(ctx, req, f);
    }

    /** TxnOffsetCommit's generation field (4.1: setGenerationId). */
    static void setGeneration(TxnOffsetCommitRequestData req, int generation) {
        req.setGenerationId(generation);
    }
}
