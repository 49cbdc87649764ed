package commands

// Arguments of prompt and invoke (see COMMANDS in mcpx(1)): ARG=VALUE,
// KEY=VALUE and KEY:=JSON pairs, @FILE and @- values, and typing by a tool's
// input schema. Nothing here talks to a server; the only IO is reading @FILE
// and stdin. Values keep their bytes: numbers are never converted through
// float64, strings are never HTML-escaped, JSON is only compacted.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/render"
)

// pair is one ARG=VALUE, KEY=VALUE or KEY:=JSON argument after @-reading.
type pair struct {
	Key   string
	Value string // the value; for Raw, the JSON text
	Raw   bool   // KEY:=JSON (invoke only)
	File  string // "" or the @FILE / "-" the value came from (for messages)
}

// valueClip bounds the "value" detail of an error (in characters).
const valueClip = 200

// parsePairs splits command-line pairs. allowRaw enables KEY:=JSON (invoke).
// VALUE forms: "@FILE" reads FILE verbatim; "@-" reads stdin (at most once per
// invocation, also counting --args -: pass stdinUsed); "@@x" is the literal "@x".
// A missing/unreadable FILE (or a directory) is exit 2 naming the key and file,
// never sent as a literal. A file or stdin over render.MessageCeiling is a
// *render.LimitError. Content that is not valid UTF-8 is exit 2 (values are JSON strings).
// A pair without "=" or with an empty key is exit 2 with an example. The same key twice is exit 2.
func parsePairs(args []string, allowRaw bool, stdin io.Reader, stdinUsed *bool) ([]pair, error) {
	return parsePairsLimit(args, allowRaw, stdin, stdinUsed, render.MessageCeiling)
}

// parsePairsLimit is parsePairs with the size ceiling as a parameter (tests).
func parsePairsLimit(args []string, allowRaw bool, stdin io.Reader, stdinUsed *bool, limit int64) ([]pair, error) {
	if stdinUsed == nil {
		stdinUsed = new(bool)
	}
	pairs := make([]pair, 0, len(args))
	seen := map[string]bool{}
	for _, arg := range args {
		p, err := splitPair(arg, allowRaw)
		if err != nil {
			return nil, err
		}
		if seen[p.Key] {
			e := &UsageError{Msg: fmt.Sprintf("argument %q is given twice", p.Key), Details: map[string]any{"key": p.Key}}
			if allowRaw {
				e.Hints = []string{fmt.Sprintf("give each key once; a list is one JSON value: %s:='[\"a\",\"b\"]'", p.Key)}
			} else {
				e.Hints = []string{"give each argument once"}
			}
			return nil, e
		}
		seen[p.Key] = true
		what := fmt.Sprintf("argument %q", p.Key)
		if strings.HasPrefix(p.Value, "@") {
			var b []byte
			b, p.File, err = readAtValue(p.Value, what, p.Key, stdin, stdinUsed, limit)
			if err != nil {
				return nil, err
			}
			p.Value = string(b)
		}
		if !utf8.ValidString(p.Value) {
			return nil, notUTF8(what, p.Key, p.File)
		}
		if p.Raw {
			if _, err := rawPairJSON(p); err != nil {
				return nil, err
			}
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

// splitPair splits one argument at its first "=". With allowRaw, a key
// ending in ":" (KEY:=JSON) makes a raw pair; "a:b=1" is the key "a:b".
func splitPair(arg string, allowRaw bool) (pair, error) {
	key, val, ok := strings.Cut(arg, "=")
	if !ok || key == "" || (allowRaw && key == ":") {
		var msg string
		if !ok {
			msg = fmt.Sprintf("%q is not %s pair", argClip(arg, 60), pairForm(allowRaw))
		} else {
			msg = fmt.Sprintf("%q has an empty name before \"=\"", argClip(arg, 60))
		}
		return pair{}, &UsageError{Msg: msg, Hints: []string{pairExample(allowRaw)}}
	}
	p := pair{Key: key, Value: val}
	if allowRaw && strings.HasSuffix(key, ":") {
		p.Key, p.Raw = strings.TrimSuffix(key, ":"), true
	}
	if !utf8.ValidString(p.Key) {
		return pair{}, &UsageError{Msg: fmt.Sprintf("argument name %q is not valid UTF-8", p.Key)}
	}
	return p, nil
}

func pairForm(allowRaw bool) string {
	if allowRaw {
		return "a KEY=VALUE or KEY:=JSON"
	}
	return "an ARG=VALUE"
}

func pairExample(allowRaw bool) string {
	if allowRaw {
		return `arguments after the tool name are KEY=VALUE (typed by the tool's schema) or KEY:=JSON: mcpx invoke SRV TOOL path=/tmp/notes.txt limit:=10`
	}
	return "arguments after the prompt name are ARG=VALUE: mcpx prompt SRV NAME topic=rust"
}

// readAtValue resolves a value starting with "@": "@@x" is the literal "@x"
// (returned with file ""), "@-" reads stdin (file "-"), "@FILE" reads FILE.
// what names the value in messages ("argument \"k\"", "--args"); key is the
// "key" detail ("" for none).
func readAtValue(v, what, key string, stdin io.Reader, stdinUsed *bool, limit int64) ([]byte, string, error) {
	rest := v[1:]
	details := func(file string) map[string]any {
		d := map[string]any{"file": file}
		if key != "" {
			d["key"] = key
		}
		return d
	}
	switch {
	case strings.HasPrefix(rest, "@"):
		return []byte(rest), "", nil
	case rest == "-":
		if *stdinUsed {
			return nil, "", &UsageError{Msg: fmt.Sprintf("%s: @- reads stdin, which another value already read", what),
				Details: details("-"),
				Hints:   []string{"stdin can be read only once: put the other value in a file and pass @FILE"}}
		}
		*stdinUsed = true
		b, err := readCapped(stdin, limit)
		if err != nil {
			var le *render.LimitError
			if errors.As(err, &le) {
				le.Msg = fmt.Sprintf("%s: the value read from stdin is too large", what)
				return nil, "", le
			}
			return nil, "", &UsageError{Msg: fmt.Sprintf("%s: cannot read stdin: %v", what, err), Details: details("-")}
		}
		return b, "-", nil
	case rest == "":
		return nil, "", &UsageError{Msg: fmt.Sprintf("%s: \"@\" names no file", what), Details: details(""),
			Hints: []string{`@FILE reads a file, @- reads stdin, and @@ stands for a literal "@"`}}
	}
	file := rest
	b, err := readFileCapped(file, limit)
	if err != nil {
		var le *render.LimitError
		if errors.As(err, &le) {
			le.Msg = fmt.Sprintf("%s: %s is too large", what, file)
			return nil, "", le
		}
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		e := &UsageError{Msg: fmt.Sprintf("%s: cannot read @%s: %v", what, file, cause), Details: details(file)}
		if strings.HasPrefix(file, "~/") {
			e.Hints = append(e.Hints, `the shell does not expand "~" after "@"; write @$HOME/`+file[2:])
		}
		if key != "" {
			e.Hints = append(e.Hints, fmt.Sprintf("to send the literal text %q, double the @: %s=@%s", v, key, v))
		}
		return nil, "", e
	}
	return b, file, nil
}

var errIsDir = errors.New("is a directory")

// readFileCapped reads a whole file of at most limit bytes.
func readFileCapped(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, &render.LimitError{Limit: "message ceiling", Value: limit}
	}
	return readCapped(f, limit)
}

// readCapped reads r to its end, refusing more than limit bytes. A nil
// reader reads as empty.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	if r == nil {
		return []byte{}, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &render.LimitError{Limit: "message ceiling", Value: limit}
	}
	return b, nil
}

func notUTF8(what, key, file string) error {
	d := map[string]any{}
	if key != "" {
		d["key"] = key
	}
	var msg string
	switch file {
	case "":
		msg = fmt.Sprintf("%s: the value is not valid UTF-8", what)
	case "-":
		d["file"] = file
		msg = fmt.Sprintf("%s: the value read from stdin is not valid UTF-8", what)
	default:
		d["file"] = file
		msg = fmt.Sprintf("%s: %s is not valid UTF-8 text", what, file)
	}
	return &UsageError{Msg: msg, Details: d,
		Hints: []string{"values are sent as JSON strings; encode binary data (e.g. base64) first"}}
}

// readArgsFlag returns the JSON text of --args: "-" (or "@-") reads stdin,
// "@FILE" reads FILE, "@@x" is the literal "@x", anything else is the JSON
// itself. stdinUsed is shared with parsePairs (stdin is read at most once).
func readArgsFlag(v string, stdin io.Reader, stdinUsed *bool) ([]byte, error) {
	return readArgsFlagLimit(v, stdin, stdinUsed, render.MessageCeiling)
}

func readArgsFlagLimit(v string, stdin io.Reader, stdinUsed *bool, limit int64) ([]byte, error) {
	if stdinUsed == nil {
		stdinUsed = new(bool)
	}
	if v == "-" {
		v = "@-"
	}
	if !strings.HasPrefix(v, "@") {
		return []byte(v), nil
	}
	b, file, err := readAtValue(v, "--args", "", stdin, stdinUsed, limit)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		return nil, notUTF8("--args", "", file)
	}
	return b, nil
}

// promptArgs checks pairs against the prompt's declared arguments: an undeclared
// key is a *UsageError listing the declared names (Details "declared": []string,
// and "unknown": []string). It returns the values by name and the missing required
// arguments (in declared order), which the caller asks for or reports.
func promptArgs(prompt string, pairs []pair, declared []client.PromptArgument) (map[string]string, []client.PromptArgument, error) {
	names := make([]string, 0, len(declared))
	for _, a := range declared {
		names = append(names, a.Name)
	}
	values := make(map[string]string, len(pairs))
	var unknown []string
	for _, p := range pairs {
		if !slices.Contains(names, p.Key) {
			unknown = append(unknown, p.Key)
			continue
		}
		values[p.Key] = p.Value
	}
	var missing []client.PromptArgument
	var missingNames []string
	for _, a := range declared {
		if _, ok := values[a.Name]; a.Required && !ok {
			missing = append(missing, a)
			missingNames = append(missingNames, a.Name)
		}
	}
	if len(unknown) > 0 {
		return nil, nil, undeclaredError("prompt", prompt, "has no", "unknown", unknown, names, missingNames)
	}
	return values, missing, nil
}

// undeclaredError: arguments a prompt or tool does not declare (exit 2),
// with the declared names, close matches, and the missing ones too (a typo
// usually explains both). Details: detailKey (the extra names), "declared",
// and "missing" when some are.
func undeclaredError(kind, name, verb, detailKey string, extra, declared, missing []string) error {
	var msg string
	if len(declared) == 0 {
		msg = fmt.Sprintf("%s %q takes no arguments, got %s", kind, name, quoteList(extra))
	} else {
		shown := declared
		if len(shown) > 50 { // a server can declare thousands
			shown = append(slices.Clone(shown[:50]), fmt.Sprintf("and %d more", len(declared)-50))
		}
		msg = fmt.Sprintf("%s %q %s %s %s; it declares: %s", kind, name, verb, plural(len(extra), "argument"), quoteList(extra), strings.Join(shown, ", "))
	}
	var hints []string
	for _, x := range extra {
		if n := argNearest(x, declared); n != "" {
			hints = append(hints, fmt.Sprintf("did you mean %q instead of %q?", n, x))
		}
	}
	d := map[string]any{detailKey: extra, "declared": declared}
	if len(missing) > 0 {
		d["missing"] = missing
		hints = append(hints, "also missing: "+strings.Join(missing, ", "))
	}
	return &UsageError{Msg: msg, Hints: hints, Details: d}
}

// missingPromptArgs is the exit-2 error listing every missing required argument
// (Details "missing": names), each with its description in the message.
func missingPromptArgs(prompt string, missing []client.PromptArgument, sec render.Secrets) error {
	names := make([]string, 0, len(missing))
	items := make([]string, 0, len(missing))
	pairs := make([]string, 0, len(missing))
	for _, a := range missing {
		names = append(names, a.Name)
		item := a.Name
		if a.Description != nil {
			if d := maskedLine(sec, *a.Description, 80); d != "" {
				item += " (" + d + ")"
			}
		}
		items = append(items, item)
		pairs = append(pairs, shellArg(maskedClip(sec, a.Name, 100)+"=VALUE")) // a server's name, pasted into a shell
	}
	return &UsageError{
		Msg:     fmt.Sprintf("prompt %q is missing required %s: %s", prompt, plural(len(missing), "argument"), strings.Join(items, ", ")),
		Hints:   []string{"add " + strings.Join(pairs, " ")},
		Details: map[string]any{"missing": names},
	}
}

// toolArgs builds the tools/call arguments object: base (from --args: nil, or the
// JSON text given inline, from @FILE or stdin) overlaid by pairs, each value typed
// by schema (the tool's inputSchema, nil when none could be had: then every
// value is a string and no checks run). It returns compact JSON object bytes.
// Messages mask sec's secrets in what they quote of the schema.
func toolArgs(tool string, base []byte, pairs []pair, schema json.RawMessage, sec render.Secrets) (json.RawMessage, error) {
	sc := parseToolSchema(schema)
	if sc != nil {
		sc.secrets = sec
	}
	var keys []string
	vals := map[string][]byte{}
	set := func(k string, v []byte) {
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	if base != nil {
		members, err := argsObject(base)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			var b bytes.Buffer
			if err := json.Compact(&b, m.raw); err != nil {
				return nil, &UsageError{Msg: fmt.Sprintf("--args must be a JSON object: %v", err)}
			}
			set(m.key, b.Bytes())
		}
	}
	for _, p := range pairs {
		v, err := typePair(p, sc)
		if err != nil {
			return nil, err
		}
		set(p.Key, v)
	}
	if sc != nil {
		if err := sc.check(tool, keys); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(jsonString(k))
		out.WriteByte(':')
		out.Write(vals[k])
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// argsObject parses --args: a JSON object, its members in order (a key given
// twice keeps its first place and its last value, as JSON.parse does).
func argsObject(base []byte) ([]argMember, error) {
	hint := []string{`e.g. --args '{"path":"/tmp/notes.txt","limit":10}'`}
	if !utf8.Valid(base) {
		return nil, &UsageError{Msg: "--args is not valid UTF-8", Hints: []string{"values are sent as JSON strings; encode binary data (e.g. base64) first"}}
	}
	if err := json.Unmarshal(base, new(json.RawMessage)); err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("--args must be a JSON object: %v", err), Hints: hint}
	}
	members, ok := jsonObjectMembers(base)
	if !ok {
		return nil, &UsageError{Msg: fmt.Sprintf("--args must be a JSON object, not %s", kindPhrase(valueKind(bytes.TrimSpace(base)))), Hints: hint}
	}
	return members, nil
}

// argMember is one member of a JSON object, in document order.
type argMember struct {
	key string
	raw json.RawMessage
}

// jsonObjectMembers returns the members of a JSON object in document order,
// or ok=false when data is not exactly one JSON object.
func jsonObjectMembers(data []byte) (members []argMember, ok bool) {
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if d, isDelim := tok.(json.Delim); err != nil || !isDelim || d != '{' {
		return nil, false
	}
	members = []argMember{}
	for dec.More() {
		tok, err := dec.Token()
		key, isString := tok.(string)
		if err != nil || !isString {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		members = append(members, argMember{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return members, true
}

// toolSchema is what toolArgs uses of a tool's inputSchema.
type toolSchema struct {
	props    []argMember // properties, in schema order
	propsOK  bool        // properties absent or an object (typing and the forbidden check apply)
	required []string
	closed   bool            // additionalProperties: false
	extra    json.RawMessage // additionalProperties when it is a schema object
	doc      *render.SchemaDoc
	secrets  render.Secrets // masked in what messages quote of the schema (nil: none)
}

// parseToolSchema returns nil when there is no usable schema (none, null, or
// not a JSON object).
func parseToolSchema(s json.RawMessage) *toolSchema {
	top, ok := jsonObjectMembers(s)
	if !ok {
		return nil
	}
	sc := &toolSchema{propsOK: true, doc: render.NewSchemaDoc(s)}
	for _, m := range top {
		switch m.key {
		case "properties":
			sc.props, sc.propsOK = jsonObjectMembers(m.raw)
		case "required":
			sc.required = nil
			var list []json.RawMessage
			if json.Unmarshal(m.raw, &list) == nil {
				seen := map[string]bool{} // a set: a server's list can be long
				for _, r := range list {
					var name string
					// "" cannot be given as a pair: it is not required of anyone
					if json.Unmarshal(r, &name) == nil && name != "" && !seen[name] {
						seen[name] = true
						sc.required = append(sc.required, name)
					}
				}
			}
		case "additionalProperties":
			sc.closed, sc.extra = false, nil
			if string(bytes.TrimSpace(m.raw)) == "false" {
				sc.closed = true
			} else if _, ok := jsonObjectMembers(m.raw); ok {
				sc.extra = m.raw
			}
		}
	}
	return sc
}

// prop returns the schema of a declared property.
func (sc *toolSchema) prop(key string) (json.RawMessage, bool) {
	for _, m := range sc.props {
		if m.key == key {
			return m.raw, true
		}
	}
	return nil, false
}

// propSchema is the schema a key's value must match: its property, else
// additionalProperties when that is a schema; nil when there is none.
func (sc *toolSchema) propSchema(key string) json.RawMessage {
	if sc == nil || !sc.propsOK {
		return nil
	}
	if raw, ok := sc.prop(key); ok {
		return raw
	}
	return sc.extra
}

// typeOf is the type a KEY=VALUE value takes.
func (sc *toolSchema) typeOf(key string) argType {
	if raw := sc.propSchema(key); raw != nil {
		return schemaType(sc.doc, raw)
	}
	return argType{str: true}
}

// check applies required and additionalProperties: false to the merged keys.
func (sc *toolSchema) check(tool string, keys []string) error {
	var missing []string
	for _, r := range sc.required {
		if !slices.Contains(keys, r) {
			missing = append(missing, r)
		}
	}
	declared := make([]string, 0, len(sc.props))
	for _, m := range sc.props {
		if !slices.Contains(declared, m.key) {
			declared = append(declared, m.key)
		}
	}
	if sc.closed && sc.propsOK {
		var forbidden []string
		for _, k := range keys {
			if !slices.Contains(declared, k) {
				forbidden = append(forbidden, k)
			}
		}
		if len(forbidden) > 0 {
			return undeclaredError("tool", tool, "does not accept", "forbidden", forbidden, declared, missing)
		}
	}
	if len(missing) > 0 {
		items := make([]string, 0, len(missing))
		pairs := make([]string, 0, len(missing))
		for _, name := range missing {
			var about []string
			if raw, ok := sc.prop(name); ok {
				if t := schemaType(sc.doc, raw).label; t != "" {
					about = append(about, t)
				}
				if d := sc.description(raw); d != "" {
					about = append(about, d)
				}
			}
			item := name
			if len(about) > 0 {
				item += " (" + strings.Join(about, ", ") + ")"
			}
			items = append(items, item)
			pairs = append(pairs, shellArg(maskedClip(sc.secrets, name, 100)+"=VALUE")) // a server's name, pasted into a shell
		}
		return &UsageError{
			Msg:     fmt.Sprintf("tool %q is missing required %s: %s", tool, plural(len(missing), "argument"), strings.Join(items, ", ")),
			Hints:   []string{"add " + strings.Join(pairs, " ") + ", or put them in --args"},
			Details: map[string]any{"missing": missing},
		}
	}
	return nil
}

// argType is how a KEY=VALUE value is sent: as the string itself, or
// parsed as JSON of one of kinds.
type argType struct {
	str   bool
	kinds []string // JSON kinds, in schema order: number, integer, boolean, null, array, object
	label string   // the declared type(s), "integer" or "integer|null"; "" when none
}

var jsonKinds = []string{"string", "number", "integer", "boolean", "null", "array", "object"}

// schemaType reads a property schema's type: "type" (a name or a union);
// else the type of what its local $ref names; else the union of its
// anyOf/oneOf members' types; else the types its allOf members agree on;
// else the kinds of its enum or const values. A remote $ref, a cycle, and
// anything untyped take the string.
func schemaType(doc *render.SchemaDoc, raw json.RawMessage) argType {
	return typeFromNames(schemaNames(doc, raw, 0))
}

// schemaNames returns the type names of a schema, and whether some part of
// it is untyped (which lets a string through).
func schemaNames(doc *render.SchemaDoc, raw json.RawMessage, depth int) ([]string, bool) {
	if !doc.Visit(depth, len(raw)) {
		return nil, true
	}
	kw, ok := schemaKeywords(raw)
	if !ok {
		return nil, true
	}
	switch {
	case kw.typ != nil:
		names, ok := typeNames(kw.typ)
		return names, !ok
	case kw.ref != nil:
		type found struct {
			names   []string
			untyped bool
		}
		f, ok := followRef(doc, "type", kw.ref, found{untyped: true}, func(target json.RawMessage) found {
			names, untyped := schemaNames(doc, target, depth+1)
			return found{names, untyped}
		})
		if !ok {
			return nil, true // remote, or naming nothing: never fetched
		}
		return f.names, f.untyped
	case kw.anyOf != nil || kw.oneOf != nil:
		var names []string
		sawUnion, untyped := false, false
		for _, list := range []json.RawMessage{kw.anyOf, kw.oneOf} {
			var subs []json.RawMessage
			if list == nil || json.Unmarshal(list, &subs) != nil {
				continue
			}
			for _, s := range subs {
				sawUnion = true
				ns, u := schemaNames(doc, s, depth+1)
				untyped = untyped || u
				names = append(names, ns...)
			}
		}
		return names, untyped || !sawUnion
	case kw.allOf != nil:
		// every member applies: the types they all allow (pydantic
		// wraps a lone $ref in allOf to give it a description)
		var subs []json.RawMessage
		_ = json.Unmarshal(kw.allOf, &subs)
		var agreed []string
		typed := false
		for _, s := range subs {
			ns, u := schemaNames(doc, s, depth+1)
			if u {
				continue
			}
			if !typed {
				agreed, typed = ns, true
			} else {
				agreed = intersectTypes(agreed, ns)
			}
		}
		if !typed || len(agreed) == 0 {
			return nil, true
		}
		return agreed, false
	case kw.enum != nil || kw.cnst != nil:
		var values []json.RawMessage
		if kw.enum != nil && json.Unmarshal(kw.enum, &values) != nil {
			return nil, true
		}
		if kw.cnst != nil {
			values = append(values, kw.cnst)
		}
		var names []string
		for _, v := range values {
			names = append(names, valueKind(bytes.TrimSpace(v)))
		}
		return names, false
	}
	return nil, true
}

// typeNames reads "type": a name or an array of names (other entries ignored).
func typeNames(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	names := []string{}
	for _, r := range list {
		if json.Unmarshal(r, &one) == nil {
			names = append(names, one)
		}
	}
	return names, true
}

func typeFromNames(names []string, untyped bool) argType {
	var uniq []string
	for _, n := range names {
		if !slices.Contains(uniq, n) {
			uniq = append(uniq, n)
		}
	}
	t := argType{label: strings.Join(uniq, "|")}
	if untyped || slices.Contains(uniq, "string") {
		t.str = true
		return t
	}
	for _, n := range uniq {
		if slices.Contains(jsonKinds, n) {
			t.kinds = append(t.kinds, n)
		}
	}
	t.str = len(t.kinds) == 0 // only unknown type names: take the string
	return t
}

func (t argType) allows(kind string) bool {
	return slices.Contains(t.kinds, kind) || (kind == "integer" && slices.Contains(t.kinds, "number"))
}

func (t argType) expected() string {
	if len(t.kinds) == 1 {
		return t.kinds[0]
	}
	return "one of " + strings.Join(t.kinds, ", ")
}

// description is a property's description (its first 80 characters, on
// one line, secrets masked), else that of the schema its local $ref (or an
// allOf of one member) names.
func (sc *toolSchema) description(raw json.RawMessage) string {
	return maskedLine(sc.secrets, sc.doc.Description(raw), 80)
}

// typePair returns the JSON of one pair's value.
func typePair(p pair, sc *toolSchema) (json.RawMessage, error) {
	if !utf8.ValidString(p.Key) || !utf8.ValidString(p.Value) {
		return nil, notUTF8(fmt.Sprintf("argument %q", p.Key), p.Key, p.File)
	}
	if p.Raw {
		return rawPairJSON(p)
	}
	v, err := typeValue(p, sc.typeOf(p.Key))
	if raw := sc.propSchema(p.Key); raw != nil {
		if set := schemaAllowed(sc.doc, raw); set != nil {
			return enumValue(p, set, v, err, sc.secrets)
		}
	}
	return v, err
}

// typeValue returns the JSON of a pair's value typed as t.
func typeValue(p pair, t argType) (json.RawMessage, error) {
	if t.str {
		return jsonString(p.Value), nil
	}
	if p.File != "" {
		// KEY=@FILE and KEY=@- read a string, verbatim (invoke in COMMANDS,
		// mcpx(1)), as httpie's field=@file does; KEY:=@FILE reads JSON. A
		// string where the schema wants something else is a bad value, never
		// coerced.
		exp, what := t.expected(), t.expected()
		if len(t.kinds) == 1 {
			what = kindPhrase(t.kinds[0])
		}
		return nil, &UsageError{
			Msg:     fmt.Sprintf("argument %q: %s is a string (KEY=@FILE reads text, verbatim), and %q takes %s", p.Key, valueSource(p), p.Key, what),
			Hints:   []string{fmt.Sprintf("%s:=@%s reads a JSON value from the file instead", p.Key, p.File)},
			Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "expected": exp},
		}
	}
	v := []byte(strings.TrimSpace(p.Value))
	if json.Valid(v) && t.allows(valueKind(v)) {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err == nil {
			return b.Bytes(), nil
		}
	}
	exp := t.expected()
	var what string
	if len(t.kinds) == 1 {
		what = kindPhrase(t.kinds[0])
	} else {
		what = exp
	}
	return nil, &UsageError{
		Msg: fmt.Sprintf("argument %q: %s is not %s", p.Key, valueSource(p), what),
		Hints: []string{fmt.Sprintf("%q takes %s, e.g. %s=%s; %s:=JSON sends any JSON value as is",
			p.Key, what, p.Key, kindExample[t.kinds[0]], p.Key)},
		Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "expected": exp},
	}
}

// rawPairJSON checks and compacts the JSON of a KEY:=JSON pair.
func rawPairJSON(p pair) (json.RawMessage, error) {
	err := json.Unmarshal([]byte(p.Value), new(json.RawMessage))
	if err == nil {
		var b bytes.Buffer
		if err = json.Compact(&b, []byte(p.Value)); err == nil {
			return b.Bytes(), nil
		}
	}
	src := valueSource(p)
	if p.File == "" {
		src = fmt.Sprintf("%s:=%s", p.Key, argClip(p.Value, 60))
	}
	return nil, &UsageError{
		Msg: fmt.Sprintf("argument %q: %s is not valid JSON (%v)", p.Key, src, err),
		Hints: []string{fmt.Sprintf(`quote JSON for the shell, e.g. %s:='{"a":[1,2]}'; to send text, write %s=TEXT`,
			p.Key, p.Key)},
		Details: map[string]any{"key": p.Key, "value": argClip(p.Value, valueClip), "expected": "JSON"},
	}
}

// valueSource describes a pair's value in messages.
func valueSource(p pair) string {
	switch p.File {
	case "":
		return fmt.Sprintf("%q", argClip(p.Value, 60))
	case "-":
		return "the value read from stdin"
	}
	return "the content of " + p.File
}

// valueKind is the JSON kind of a valid JSON value: a number without
// fraction or exponent is "integer".
func valueKind(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(v, ".eE") {
		return "number"
	}
	return "integer"
}

func kindPhrase(kind string) string {
	switch kind {
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "boolean":
		return "a boolean (true or false)"
	case "null":
		return "null"
	case "array":
		return "a JSON array"
	case "object":
		return "a JSON object"
	case "string":
		return "a string"
	}
	return "valid JSON"
}

var kindExample = map[string]string{
	"integer": "42",
	"number":  "3.14",
	"boolean": "true",
	"null":    "null",
	"array":   `'["a","b"]'`,
	"object":  `'{"k":"v"}'`,
}

// jsonString encodes s as a JSON string, without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// argClip keeps at most n characters of s, the last one "…" when cut. It
// is not text.Clip, whose "..." comes after the n characters: the mark is
// one character of the n here, as the argument lines are sized to it.
func argClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipLine folds whitespace runs (newlines included) to one space (see
// text.Squash) and clips.
func clipLine(s string, n int) string {
	return argClip(text.Squash(s), n)
}

// maskedClip and maskedLine are argClip and clipLine of a server's string
// with sec's secrets masked before it is cut, so that a cut never shows
// the start of a secret in clear (see render.MaskedHead).
func maskedClip(sec render.Secrets, s string, n int) string {
	head, more := render.MaskedHead(sec, s, n)
	if more {
		head += "…"
	}
	return argClip(head, n)
}

func maskedLine(sec render.Secrets, s string, n int) string {
	head, more := render.MaskedHead(sec, s, n)
	if more {
		head += "…"
	}
	return clipLine(head, n)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// argNearest returns the declared name closest to name (same letters in
// another case, or at most two edits away), or "".
func argNearest(name string, names []string) string {
	best, bestD := "", 3
	if len(name) > 64 {
		return "" // names come from servers: no quadratic work on long ones
	}
	for _, n := range names {
		if len(n) > 64 {
			continue
		}
		if strings.EqualFold(n, name) {
			return n
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD && d < utf8.RuneCountInString(name) {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
