package exercises

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// sharedID says which transactional.id or group.instance.id two different
// members of w started with ("" if none): in Kafka, and in kgviz, the newer
// instance fences the older one (KIP-98: PRODUCER_FENCED after the epoch
// bump; KIP-345: FENCED_INSTANCE_ID), so a configuration shared by every
// instance must make each id its own. The sentence names the members and
// the error, never the fix.
func sharedID(w *kgviz.World) string {
	type key struct{ kind, id string }
	users := map[key]map[string]bool{}
	add := func(kind, id, member string) {
		if id == "" {
			return
		}
		k := key{kind, id}
		if users[k] == nil {
			users[k] = map[string]bool{}
		}
		users[k][member] = true
	}
	for _, e := range w.Events() {
		if e.Type != kgviz.EvSend || e.Response {
			continue
		}
		switch b := e.Body().(type) {
		case *kgviz.InitProducerIDRequest:
			add("transactional.id", b.TransactionalID, e.Member)
		case *kgviz.JoinGroupRequest:
			add("group.instance.id", b.GroupInstanceID, e.Member)
		case *kgviz.ConsumerGroupHeartbeatRequest:
			add("group.instance.id", b.InstanceID, e.Member)
		}
	}
	var out []string
	for k, m := range users {
		if len(m) < 2 {
			continue
		}
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		code := "PRODUCER_FENCED"
		if k.kind == "group.instance.id" {
			code = "FENCED_INSTANCE_ID"
		}
		out = append(out, fmt.Sprintf("%s ran with the same %s %q: in Kafka the newer instance fences the older (%s), so they cannot all run", strings.Join(names, ", "), k.kind, k.id, code))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// sharedIDHint is the hint of a failure caused by a shared id.
const sharedIDHint = "Hint: one configuration is shared by every instance, but each running instance needs an id of its own that stays the same when that instance restarts."
