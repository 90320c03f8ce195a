package exercises

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Configuration answers are Kafka client properties, name → value, as a
// consumer.properties or producer.properties file holds them:
//
//	map[string]string{"session.timeout.ms": "11", "group.instance.id": "billing-${env:HOSTNAME}"}
//
// (a kgviz.Option is code, not data, and cannot cross the pipe between the
// grader and the student's program). Options turns them into kgviz options.
// Times are in ticks, as everywhere in kgviz. One configuration is given to
// every member, as one properties file to every instance of a service: a
// per-instance id (transactional.id, group.instance.id) takes its instance's
// part from ${env:HOSTNAME}, as Kafka's EnvVarConfigProvider (KIP-887)
// resolves it; in kgviz each member's host is named like the member.

// configKeys are the properties Options understands, with what they do.
var configKeys = map[string]string{
	"session.timeout.ms":            "ticks (kgviz.WithSessionTimeout)",
	"max.poll.interval.ms":          "ticks (kgviz.WithMaxPollInterval)",
	"max.poll.records":              "records per poll (kgviz.WithMaxPollRecords)",
	"auto.commit.interval.ms":       "ticks (kgviz.WithAutoCommitInterval)",
	"transaction.timeout.ms":        "ticks (kgviz.WithTransactionTimeout)",
	"request.timeout.ms":            "ticks (kgviz.WithRequestTimeout)",
	"group.instance.id":             "makes the member static (kgviz.WithInstanceID); ${env:HOSTNAME} in the value is the member's host, named like the member (C1, C2, ...)",
	"isolation.level":               "read_committed or read_uncommitted (kgviz.WithIsolation)",
	"enable.idempotence":            "true or false (kgviz.WithProducer(kgviz.Idempotent or kgviz.Plain))",
	"transactional.id":              "the transactional producer, which commits offsets in its transactions (kgviz.WithTransactionalID); ${env:HOSTNAME} in the value is the member's host, named like the member",
	"enable.auto.commit":            "true or false (kgviz.WithCommit(kgviz.AutoCommit))",
	"partition.assignment.strategy": "range, roundrobin, sticky or cooperative-sticky (kgviz.WithAssignor)",
}

// ConfigKeys returns the property names Options understands, sorted.
func ConfigKeys() []string {
	keys := make([]string, 0, len(configKeys))
	for k := range configKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Options turns client properties into kgviz options, for a world
// (member=false: NewWorld) or for each member (member=true: AddMember).
// An unknown property or a bad value is an error that names it.
func Options(props map[string]string, member bool) ([]kgviz.Option, error) {
	var opts []kgviz.Option
	for _, k := range sortedKeys(props) {
		v := strings.TrimSpace(props[k])
		bad := func(want string) error { return fmt.Errorf("%s=%q: want %s", k, props[k], want) }
		switch k {
		case "session.timeout.ms", "max.poll.interval.ms", "max.poll.records", "auto.commit.interval.ms", "transaction.timeout.ms", "request.timeout.ms":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, bad("a whole number of ticks")
			}
			opts = append(opts, kgviz.WithConfig(k, n))
		case "group.instance.id":
			if !member {
				return nil, fmt.Errorf("group.instance.id is a setting of each member, not of the world")
			}
			if v != "" {
				opts = append(opts, kgviz.WithInstanceID(v))
			}
		case "isolation.level":
			switch v {
			case "read_committed":
				opts = append(opts, kgviz.WithIsolation(kgviz.ReadCommitted))
			case "read_uncommitted":
				opts = append(opts, kgviz.WithIsolation(kgviz.ReadUncommitted))
			default:
				return nil, bad("read_committed or read_uncommitted")
			}
		case "enable.idempotence":
			switch v {
			case "true":
				opts = append(opts, kgviz.WithProducer(kgviz.Idempotent))
			case "false":
				opts = append(opts, kgviz.WithProducer(kgviz.Plain))
			default:
				return nil, bad("true or false")
			}
		case "transactional.id":
			if v != "" {
				opts = append(opts, kgviz.WithTransactionalID(v))
			}
		case "enable.auto.commit":
			switch v {
			case "true":
				opts = append(opts, kgviz.WithCommit(kgviz.AutoCommit))
			case "false":
			default:
				return nil, bad("true or false")
			}
		case "partition.assignment.strategy":
			if member {
				return nil, fmt.Errorf("partition.assignment.strategy is a setting of the world here, not of one member")
			}
			a, err := kgviz.AssignorByName(v)
			if err != nil {
				return nil, bad("range, roundrobin, sticky or cooperative-sticky")
			}
			opts = append(opts, kgviz.WithAssignor(a))
		default:
			return nil, fmt.Errorf("unknown property %q: known are %s", k, strings.Join(ConfigKeys(), ", "))
		}
	}
	return opts, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
