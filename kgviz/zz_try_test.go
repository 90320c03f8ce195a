package kgviz_test
import (
	"fmt"
	"testing"
	"github.com/kgviz/kgviz/kgviz"
)
func TestTable(t *testing.T) {
	for _, a := range []kgviz.Assignor{kgviz.Range, kgviz.CooperativeSticky} {
		w := kgviz.NewWorld(kgviz.WithAssignor(a))
		w.AddMember("C1").RunUntil(kgviz.Stable())
		fmt.Println(a.Name(), w.Assignment(), w.Generation())
		for _, m := range []string{"C2", "C3", "C4"} {
			g0 := w.Generation(); t0 := w.Now()
			w.AddMember(m).RunUntil(kgviz.Stable())
			ps, pt := w.PauseMeter().Between(t0, w.Now()+1)
			fmt.Println(a.Name(), "+", m, w.Assignment(), "gens", w.Generation()-g0, "paused", ps, pt, w.Err())
		}
		fmt.Println(w.PauseMeter().Total, w.Now(), w.Stats())
		w.RunUntil(kgviz.Quiet())
		fmt.Println(w.PauseMeter().Total, w.Now(), w.Stats(), w.Err())
	}
}
