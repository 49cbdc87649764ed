package commands

// The answers of an elicitation's form (its fields read by
// internal/schema) as one JSON object.

import (
	"bytes"
	"encoding/json"

	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// object writes the answers as one JSON object, in the schema's order.
func object(fields []schema.Field, values map[string]json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range fields {
		v, ok := values[f.Name]
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(text.CompactJSON(v))
	}
	b.WriteByte('}')
	return b.Bytes()
}
