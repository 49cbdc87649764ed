package daemon

import (
	"encoding/json"
	"testing"
)

func TestWithoutTrace(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"_meta":{"traceparent":"x","tracestate":"y"}}`:          `{"a":1}`,
		`{"_meta":{"traceparent":"x","progressToken":"t"},"name":"n"}`:  `{"_meta":{"progressToken":"t"},"name":"n"}`,
		`{"_meta":{"progressToken":"t"}}`:                               `{"_meta":{"progressToken":"t"}}`,
		`{"level":"warning"}`:                                           `{"level":"warning"}`,
		`[1]`:                                                           `[1]`,
		`{"_meta":{"tracestate":"y","io.modelcontextprotocol/x":true}}`: `{"_meta":{"io.modelcontextprotocol/x":true}}`,
	} {
		got := withoutTrace(json.RawMessage(in))
		if string(got.(json.RawMessage)) != want {
			t.Errorf("withoutTrace(%s) = %s, want %s", in, got, want)
		}
	}
	if got := withoutTrace(map[string]any{"x": 1}); got.(map[string]any)["x"] != 1 {
		t.Errorf("params that are not raw JSON changed: %v", got)
	}
}
