package must

import (
	"encoding/json"
	"fmt"
)

// JSON is json.Marshal(v) for a v whose type always encodes; it panics,
// naming v's type, when v does not.
func JSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("must.JSON: a %T does not encode: %v", v, err))
	}
	return b
}
