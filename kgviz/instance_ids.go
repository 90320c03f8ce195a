package kgviz

import (
	"fmt"
	"strings"
)

// Per-instance ids: transactional.id and group.instance.id.
//
// Kafka identifies a producer across restarts by its transactional.id and a
// static consumer by its group.instance.id; both must be unique per running
// instance. A second instance started with the id of a live one fences it:
//
//   - transactional.id (KIP-98; TransactionCoordinator.handleInitProducerId):
//     the newer instance's InitProducerId bumps the producer epoch (aborting
//     an open transaction of the older one first), and the older instance's
//     next AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit or EndTxn is
//     refused with PRODUCER_FENCED, which kafka-clients' TransactionManager
//     treats as fatal (ProducerFencedException: the application closes).
//   - group.instance.id (KIP-345; GroupMetadataManager.replaceStaticMember
//     for the classic protocol): the newer instance's JoinGroup takes over the
//     member and its assignment under a new member id, and the older
//     instance's next Heartbeat, SyncGroup or commit is refused with
//     FENCED_INSTANCE_ID (FencedInstanceIdException, fatal). Under the
//     consumer group protocol (KIP-848) the broker refuses the newer instance
//     instead while the older has not left: UNRELEASED_INSTANCE_ID
//     (GroupMetadataManager.throwIfInstanceIdIsUnreleased).
//
// kgviz does the same; so one configuration shared by every instance must
// derive the ids from something per instance. Real deployments do it with a
// config provider (KIP-297) reading the environment (EnvVarConfigProvider,
// KIP-887, Kafka 3.5+):
//
//	config.providers=env
//	config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
//	transactional.id=billing-${env:HOSTNAME}
//
// In kgviz every member process runs on a host named like the member ("C2";
// a restart keeps the host), so "billing-${env:HOSTNAME}" is "billing-C2",
// without the two config.providers lines (docs/simplifications.md).

// hostnameVar is the one config-provider reference kgviz resolves.
const hostnameVar = "${env:HOSTNAME}"

// checkIDTemplate refuses an empty id and any ${...} reference other than
// ${env:HOSTNAME}.
func checkIDTemplate(call, key, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%s(%q): a %s must not be empty", call, id, key)
	}
	rest := strings.ReplaceAll(id, hostnameVar, "")
	if i := strings.Index(rest, "${"); i >= 0 {
		ref := rest[i:]
		if j := strings.Index(ref, "}"); j >= 0 {
			ref = ref[:j+1]
		}
		return fmt.Errorf("%s(%q): unknown reference %s: kgviz resolves only %s (the member's host, named like the member)", call, id, ref, hostnameVar)
	}
	return nil
}

// expandHostname resolves ${env:HOSTNAME} to the member's name.
func expandHostname(id, member string) string {
	return strings.ReplaceAll(id, hostnameVar, member)
}

// transactionalIDOf is the transactional.id of member's producer: the
// configured one, or "tx-" and the member's name.
func (c *config) transactionalIDOf(member string) string {
	if c.transactionalID == "" {
		return "tx-" + member
	}
	return expandHostname(c.transactionalID, member)
}

// WithTransactionalID sets transactional.id, for the world (every member the
// same setting) or one member, and makes the commits transactional (as
// WithCommit(Transactional)). "${env:HOSTNAME}" in id stands for the
// member's name, as Kafka's EnvVarConfigProvider (KIP-887) reads an
// instance's host name: WithTransactionalID("billing-${env:HOSTNAME}") gives
// C1 "billing-C1" and C2 "billing-C2". Without this option a transactional
// member's id is "tx-" and its name.
//
// Two running members with one transactional.id fence each other as in
// Kafka (KIP-98): the later InitProducerId bumps the epoch and the earlier
// member's next transactional request gets PRODUCER_FENCED, which ends it.
func WithTransactionalID(id string) Option {
	return Option{name: "WithTransactionalID", apply: func(c *config) error {
		if err := checkIDTemplate("WithTransactionalID", "transactional.id", id); err != nil {
			return err
		}
		if c.producerSet {
			return fmt.Errorf("WithTransactionalID(%q) does not go with WithProducer(%s): a transactional.id gives the transactional producer", id, c.producer)
		}
		c.transactionalID = id
		c.commit, c.commitSet, c.producer = Transactional, true, producerTransactional
		return nil
	}}
}
