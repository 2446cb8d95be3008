package must

import (
	"math"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	if got := string(JSON(map[string]string{"a": "b\n"})); got != `{"a":"b\n"}` {
		t.Errorf("JSON = %s", got)
	}
	defer func() {
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, "float64 does not encode") {
			t.Errorf("panic %v, want one naming the type", r)
		}
	}()
	JSON(math.NaN())
	t.Error("no panic for NaN")
}
