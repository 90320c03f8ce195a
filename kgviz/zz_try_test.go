package kgviz_test
import (
	"fmt"
	"testing"
	"github.com/kgviz/kgviz/kgviz"
)
func TestDemo1(t *testing.T) {
	w := kgviz.NewWorld()
	w.AddMember("C1").RunUntil(kgviz.Stable())
	start := len(w.Events())
	w.AddMember("C2").RunUntil(kgviz.Stable())
	for _, e := range w.Events()[start:] {
		if e.Type == kgviz.EvSend && e.API == "Fetch" { continue }
		fmt.Println(e)
	}
	fmt.Println(w.Assignment(), w.Generation(), w.Err())
	fmt.Println(w.PauseMeter())
}
