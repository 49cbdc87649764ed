package commands

// What invoke says when a KEY=VALUE value is not one of those a
// property's enum or const allows (the set read by internal/schema).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/internal/secret"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// enumValue types a KEY=VALUE pair whose property allows only the values
// of set: the value as typed when the set has it, else the string itself,
// else the value read as JSON (so Optional[Color] takes red and null). A
// value the set lacks is a usage error listing the allowed ones; a value
// read from a file is only ever the string.
func enumValue(p pair, set *schema.Set, typed json.RawMessage, typeErr error, sec *secret.Set) (json.RawMessage, error) {
	if typeErr == nil && set.Has(typed) {
		return typed, nil
	}
	if s := jsonString(p.Value); set.Has(s) {
		return s, nil
	}
	if p.File != "" && typeErr != nil {
		return nil, typeErr
	}
	if v := []byte(strings.TrimSpace(p.Value)); p.File == "" && json.Valid(v) && set.Has(v) {
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			return b.Bytes(), nil
		}
	}
	return nil, notAllowedError(p, set, sec)
}

// notAllowedError: a value the schema's enumeration lacks (exit 2), with
// the allowed values (Details "allowed", as JSON values), the schema's
// secrets masked before they are cut.
func notAllowedError(p pair, set *schema.Set, sec *secret.Set) error {
	shown := make([]string, 0, min(len(set.Values), 50))
	for i, v := range set.Values {
		if i == 50 {
			shown = append(shown, fmt.Sprintf("and %d more", len(set.Values)-50))
			break
		}
		shown = append(shown, maskedClip(sec, text.CompactJSON(v), 60))
	}
	pairText := func(v string) string { return shellArg(argClip(p.Key, 100) + "=" + maskedClip(sec, v, 100)) }
	hint := fmt.Sprintf("e.g. %s; %s:=JSON sends any JSON value as is", pairText(lineForm(set.Values[0])), p.Key)
	if p.File == "" && len(set.Values) <= 1000 { // (argNearest costs a little per value)
		forms := make([]string, len(set.Values))
		for i, v := range set.Values {
			forms[i] = lineForm(v)
		}
		if n := argNearest(p.Value, forms); n != "" {
			hint = fmt.Sprintf("did you mean %s? %s:=JSON sends any JSON value as is", pairText(n), p.Key)
		}
	}
	return &fail.Error{
		Code:    fail.Usage,
		Message: fmt.Sprintf("argument %q: %s is not one of the allowed values: %s", p.Key, valueSource(p), strings.Join(shown, ", ")),
		Hints:   []string{hint},
		Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "allowed": set.Values},
	}
}

// lineForm is a value as typed on the command line: a string as it is,
// anything else as its JSON.
func lineForm(v json.RawMessage) string {
	var s string
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &s) == nil {
		return s
	}
	return text.CompactJSON(v)
}
