package daemon

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// withoutTrace returns params without the trace context of its _meta
// (traceparent, tracestate): a request the daemon makes on its own (a
// replayed handshake, the log level set again on a successor) belongs to
// no caller's trace, least of all to that of the caller it was recorded
// from (see HEADLESS RUNS in mcpx(1)). Params that carry none, or that are
// not raw JSON, are returned as they are.
func withoutTrace(params any) any {
	raw, ok := params.(json.RawMessage)
	if !ok || !gjson.ValidBytes(raw) {
		return params
	}
	meta := gjson.GetBytes(raw, "_meta")
	if !meta.Get("traceparent").Exists() && !meta.Get("tracestate").Exists() {
		return params
	}
	var fields map[string]json.RawMessage
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || json.Unmarshal([]byte(meta.Raw), &m) != nil {
		return params
	}
	delete(m, "traceparent")
	delete(m, "tracestate")
	if len(m) == 0 {
		delete(fields, "_meta")
	} else {
		b, err := json.Marshal(m)
		if err != nil {
			return params
		}
		fields["_meta"] = b
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return params
	}
	return json.RawMessage(out)
}
