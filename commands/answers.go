package commands

// Answers to a server's elicitation given on the command line, for runs
// that nobody watches (see HEADLESS RUNS in mcpx(1)): --answer FIELD=VALUE,
// --answers FILE|- (a JSON object of fields, or of tools' fields), typed and
// checked by the requested schema; --on-input decline|fail says what
// happens when a request still needs a person.

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/limits"
	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// On-input policies (--on-input).
const (
	onInputDecline = "decline"
	onInputFail    = "fail"
)

// answerSet is what --answer and --answers give.
type answerSet struct {
	pairs  map[string]string                     // --answer FIELD=VALUE (the last of a field wins)
	fields map[string]json.RawMessage            // --answers: {"FIELD": value}
	perOp  map[string]map[string]json.RawMessage // --answers: {"TOOL": {"FIELD": value}}
	file   string                                // --answers FILE ("-": stdin)
}

// loadAnswers reads --answer, --answers and --on-input (setup). A value
// given for a field whose name says it is a secret is one from now on.
func (a *app) loadAnswers() error {
	g := &a.g
	switch g.onInput {
	case "", onInputDecline, onInputFail:
	default:
		return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--on-input %q: want decline or fail", g.onInput),
			Hints: []string{"--on-input fail exits 10 when a server asks for input that nobody can give"}}
	}
	s := &a.answers
	for _, p := range g.answerPairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--answer %s: want FIELD=VALUE", a.line(p, 200)),
				Hints: []string{"--answer email=ci@example.com answers the field \"email\" of a server's form"}}
		}
		if s.pairs == nil {
			s.pairs = map[string]string{}
		}
		s.pairs[k] = v
		if config.IsSecretName(k) && v != "" {
			a.s.Secrets().Add(v)
		}
	}
	if g.answersFile == "" {
		return nil
	}
	return a.readAnswers(g.answersFile)
}

// readAnswers reads --answers FILE (- for stdin).
func (a *app) readAnswers(file string) error {
	s := &a.answers
	s.file = file
	var b []byte
	var err error
	if file == "-" {
		a.answersStdin = true
		b, err = readCapped(a.s.In, limits.MessageCeiling)
	} else {
		b, err = readFileCapped(file, limits.MessageCeiling)
	}
	bad := func(format string, args ...any) error {
		return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("--answers %s: ", file) + fmt.Sprintf(format, args...),
			Details: map[string]any{"file": file},
			Hints:   []string{`--answers takes a JSON object: {"FIELD": value}, or {"TOOL": {"FIELD": value}} for one tool's questions`}}
	}
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return bad("%v", err)
	}
	doc := gjson.ParseBytes(b)
	if !gjson.ValidBytes(b) || !doc.IsObject() {
		return bad("not a JSON object")
	}
	var problem error
	doc.ForEach(func(k, v gjson.Result) bool {
		if !v.IsObject() {
			if s.fields == nil {
				s.fields = map[string]json.RawMessage{}
			}
			s.fields[k.String()] = json.RawMessage(v.Raw)
			a.secretAnswer(k.String(), v)
			return true
		}
		section := map[string]json.RawMessage{}
		v.ForEach(func(fk, fv gjson.Result) bool {
			if fv.IsObject() {
				problem = bad("%q.%q is an object; a field's answer is a string, number, boolean or array", k.String(), fk.String())
				return false
			}
			section[fk.String()] = json.RawMessage(fv.Raw)
			a.secretAnswer(fk.String(), fv)
			return true
		})
		if s.perOp == nil {
			s.perOp = map[string]map[string]json.RawMessage{}
		}
		s.perOp[k.String()] = section
		return problem == nil
	})
	return problem
}

// secretAnswer makes the answer v of a field whose name says it is a
// secret one from now on.
func (a *app) secretAnswer(name string, v gjson.Result) {
	if !config.IsSecretName(name) {
		return
	}
	if v.Type == gjson.String && v.String() != "" {
		a.s.Secrets().Add(v.String())
	}
}

// givenFor types the answers given for the fields of one form of the
// operation op (a tool's or a prompt's name): --answer over the tool's
// section of --answers over its top-level fields. Answers for fields the
// form does not have are left for another form. A value that does not fit
// its field is a usage error.
func (a *app) givenFor(server, op string, fields []schema.Field) (map[string]json.RawMessage, error) {
	s := &a.answers
	given := map[string]json.RawMessage{}
	for i := range fields {
		f := &fields[i]
		var v json.RawMessage
		var err error
		if p, ok := s.pairs[f.Name]; ok {
			v, err = f.AnswerText(p)
			if err != nil {
				return nil, a.answerError("--answer "+a.line(f.Name+"="+p, 200), server, f, err)
			}
		} else if raw, ok := s.lookup(op, f.Name); ok {
			v, err = f.AnswerJSON(raw)
			if err != nil {
				return nil, a.answerError(fmt.Sprintf("--answers %s: the answer %s", s.file, a.line(string(raw), 80)), server, f, err)
			}
		} else {
			continue
		}
		given[f.Name] = v
	}
	return given, nil
}

// lookup finds the --answers value of field for op.
func (s *answerSet) lookup(op, field string) (json.RawMessage, bool) {
	if sec, ok := s.perOp[op]; ok && op != "" {
		if v, ok := sec[field]; ok {
			return v, true
		}
	}
	v, ok := s.fields[field]
	return v, ok
}

// answerError is a given answer (what) that does not fit its field of
// server's form (exit 2).
func (a *app) answerError(what, server string, f *schema.Field, err error) error {
	return &fail.Error{Code: fail.Usage,
		Message: fmt.Sprintf("%s: field %q of server %q's form must be %s", what, a.line(f.Name, 80), server, err.Error()),
		Details: map[string]any{"field": f.Name, "server": server}}
}

// headlessForm is the answer to a form when nobody can be asked (why):
// the answers given, then the schema's defaults; accepted when every
// required field has a value, else declined, or (--on-input fail) the
// operation ends, exit 10.
func (a *app) headlessForm(e client.Elicitation, msg string, fields []schema.Field, given map[string]json.RawMessage, why string, stop func(error)) client.Answer {
	if len(given) == 0 && a.g.onInput != onInputFail {
		return a.elicitDefaults(e.Server, msg, fields, why)
	}
	values := map[string]json.RawMessage{}
	var answered, defaulted, missing []string
	for i := range fields {
		f := &fields[i]
		show := func(v json.RawMessage) string { return a.line(f.Name, 80) + "=" + a.line(text.CompactJSON(v), 80) }
		switch v, ok := given[f.Name]; {
		case ok:
			values[f.Name] = v
			answered = append(answered, show(v))
		case f.DefaultOK():
			values[f.Name] = f.Default
			defaulted = append(defaulted, show(f.Default))
		case f.Required:
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		if a.g.onInput == onInputFail {
			var asked []string
			for _, f := range fields {
				asked = append(asked, f.Name)
			}
			stop(needsInput{Server: e.Server, Message: e.Message, Fields: asked, Missing: missing}.err())
			return client.Answer{Action: "cancel", Stop: true}
		}
		if len(given) == 0 {
			return a.elicitDefaults(e.Server, msg, fields, why)
		}
		a.log.Note("server %q asked: %s; declined (%s), since %s %s no answer and no default", e.Server, msg, why,
			a.quoteNames(missing), map[bool]string{true: "has", false: "have"}[len(missing) == 1])
		return client.Answer{Action: "decline"}
	}
	if len(given) == 0 {
		return a.elicitDefaults(e.Server, msg, fields, why)
	}
	with := "the answers " + strings.Join(answered, ", ")
	if len(defaulted) > 0 {
		with += " and the defaults " + strings.Join(defaulted, ", ")
	}
	a.log.Note("server %q asked: %s; accepted with %s (%s)", e.Server, msg, with, why)
	return client.Answer{Action: "accept", Content: object(fields, values)}
}

// quoteNames quotes field names for a message.
func (a *app) quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(a.line(n, 80))
	}
	return strings.Join(q, ", ")
}

// needsInput: a server asked for input that nobody could give, and
// --on-input fail ended the operation (exit 10). Fields are the fields of
// the form it asked for, Missing those without an answer or a default;
// URL is set for a URL request instead. err is the failure.
type needsInput struct {
	Server, Message string
	Fields, Missing []string
	URL             string
}

func (e needsInput) err() *fail.Error {
	return &fail.Error{Code: fail.NeedsInput, Server: e.Server, Message: e.message(), Details: e.details(), Hints: e.hints(),
		Reason: "the server asked for input that nobody could give"}
}

func (e needsInput) message() string {
	msg := text.OneLine(text.ClipBytes(e.Message, 500))
	if e.URL != "" {
		return fmt.Sprintf("server %q asked for input that nobody could give (--on-input fail): %s; it asks a person to open %s",
			e.Server, msg, text.OneLine(text.ClipBytes(e.URL, 2000)))
	}
	q := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = strconv.Quote(text.OneLine(text.ClipBytes(n, 80)))
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("server %q asked for input that nobody could give (--on-input fail): %s; no answer for %s (it asked for %s)",
		e.Server, msg, q(e.Missing), q(e.Fields))
}

// details are the failure's fields under --json.
func (e needsInput) details() map[string]any {
	d := map[string]any{"server": e.Server, "message": e.Message}
	if e.URL != "" {
		d["url"] = e.URL
		return d
	}
	d["fields"], d["missing"] = e.Fields, e.Missing
	return d
}

// hints say how to answer.
func (e needsInput) hints() []string {
	if e.URL != "" {
		return []string{"a URL request needs a person: run mcpx on a terminal, or let the job skip this step"}
	}
	var ex []string
	for _, m := range e.Missing {
		ex = append(ex, "--answer "+shellArg(m+"=VALUE"))
	}
	sort.Strings(ex)
	return []string{"answer with " + strings.Join(ex, " ") + ", or give them in --answers FILE"}
}

// opFailure holds the error that ended an operation from inside it (an
// answer nobody could give, a given answer that did not fit): it wins over
// what the operation then returns (see app.finish).
type opFailure struct {
	mu  sync.Mutex
	err error
}

func (o *opFailure) set(err error) {
	o.mu.Lock()
	if o.err == nil {
		o.err = err
	}
	o.mu.Unlock()
}

func (o *opFailure) get() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// stopper ends the operation of clk with err, which it records.
func (a *app) stopper(clk *clock) func(error) {
	return func(err error) {
		a.opFailed.set(err)
		clk.cancel(err)
	}
}
