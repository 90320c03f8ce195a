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
	var out []string
	for _, c := range w.Fold().ClientIDs() {
		if len(c.Members) < 2 {
			continue
		}
		code := "PRODUCER_FENCED"
		if c.Kind == "group.instance.id" {
			code = "FENCED_INSTANCE_ID"
		}
		out = append(out, fmt.Sprintf("%s ran with the same %s %q: in Kafka the newer instance fences the older (%s), so they cannot all run", strings.Join(c.Members, ", "), c.Kind, c.ID, code))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// sharedIDHint is the hint of a failure caused by a shared id.
const sharedIDHint = "Hint: one configuration is shared by every instance, but each running instance needs an id of its own that stays the same when that instance restarts."
