// Answers to what a server asks during an operation (see REQUESTS FROM SERVERS
// in mcpx(1)): the elicitation form on the terminal, or mcpx's own answer when
// it cannot ask; the roots; log messages and the progress line.

package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/client/config"
	"github.com/mcpx-cli/mcpx/internal/text"
	"github.com/mcpx-cli/mcpx/render"
)

// field is one property of an elicitation's requested schema.
type field struct {
	Name, Title, Desc string
	Kind              string // string, number, integer, boolean, enum, multi; "" when mcpx cannot ask for it
	Default           json.RawMessage
	Required          bool
	Choices           []choice
	values            map[string]bool // the choices' values, for lookups
	Min, Max          *float64
	MinLen, MaxLen    *int
	Format            string
}

type choice struct{ Value, Title string }

// formFields reads the requested schema's properties in the order sent.
// A $ref is never followed (nothing is fetched): such a field has no kind.
func formFields(schema json.RawMessage) []field {
	s := gjson.ParseBytes(schema)
	required := map[string]bool{}
	for _, r := range s.Get("required").Array() {
		required[r.String()] = true
	}
	var fields []field
	s.Get("properties").ForEach(func(k, p gjson.Result) bool {
		f := field{Name: k.String(), Title: p.Get("title").String(), Desc: p.Get("description").String(),
			Required: required[k.String()], Format: p.Get("format").String()}
		if d := p.Get("default"); d.Exists() {
			f.Default = json.RawMessage(d.Raw)
		}
		num := func(key string) *float64 {
			if v := p.Get(key); v.Type == gjson.Number {
				x := v.Float()
				return &x
			}
			return nil
		}
		count := func(key string) *int {
			if v := p.Get(key); v.Type == gjson.Number && v.Int() >= 0 {
				x := int(v.Int())
				return &x
			}
			return nil
		}
		f.Min, f.Max = num("minimum"), num("maximum")
		switch t := p.Get("type").String(); {
		case p.Get("$ref").Exists():
		case t == "string" && p.Get("enum").IsArray():
			f.Kind = "enum"
			names := p.Get("enumNames").Array()
			for i, v := range p.Get("enum").Array() {
				c := choice{Value: v.String()}
				if i < len(names) {
					c.Title = names[i].String()
				}
				f.Choices = append(f.Choices, c)
			}
		case (t == "string" || t == "") && p.Get("oneOf").IsArray():
			f.Kind = "enum"
			f.Choices = titled(p.Get("oneOf"))
		case t == "array":
			items := p.Get("items")
			switch {
			case items.Get("enum").IsArray():
				for _, v := range items.Get("enum").Array() {
					f.Choices = append(f.Choices, choice{Value: v.String()})
				}
			case items.Get("anyOf").IsArray():
				f.Choices = titled(items.Get("anyOf"))
			case items.Get("oneOf").IsArray():
				f.Choices = titled(items.Get("oneOf"))
			}
			if len(f.Choices) > 0 {
				f.Kind = "multi"
				f.MinLen, f.MaxLen = count("minItems"), count("maxItems")
			}
		case t == "string":
			f.Kind = "string"
			f.MinLen, f.MaxLen = count("minLength"), count("maxLength")
		case t == "number", t == "integer", t == "boolean":
			f.Kind = t
		}
		fields = append(fields, f)
		return true
	})
	return fields
}

func titled(list gjson.Result) []choice {
	var cs []choice
	for _, m := range list.Array() {
		if c := m.Get("const"); c.Exists() {
			cs = append(cs, choice{Value: c.String(), Title: m.Get("title").String()})
		}
	}
	return cs
}

// check parses a typed answer (the JSON value) or says what is wrong.
func (f *field) check(in string) (json.RawMessage, string) {
	switch f.Kind {
	case "string":
		n := len([]rune(in))
		if f.MinLen != nil && n < *f.MinLen {
			return nil, fmt.Sprintf("at least %d %s", *f.MinLen, plural(*f.MinLen, "character"))
		}
		if f.MaxLen != nil && n > *f.MaxLen {
			return nil, fmt.Sprintf("at most %d %s", *f.MaxLen, plural(*f.MaxLen, "character"))
		}
		if msg := checkFormat(f.Format, in); msg != "" {
			return nil, msg
		}
		b, _ := json.Marshal(in)
		return b, ""
	case "number", "integer":
		in = strings.TrimSpace(in)
		x, err := strconv.ParseFloat(in, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, "a number"
		}
		if f.Kind == "integer" && wholeDigits.MatchString(in) {
			// The digits as typed: a float would lose those past 2^53.
			if f.Min != nil && x < *f.Min {
				return nil, fmt.Sprintf("at least %s", fmtNum(*f.Min))
			}
			if f.Max != nil && x > *f.Max {
				return nil, fmt.Sprintf("at most %s", fmtNum(*f.Max))
			}
			return json.RawMessage(strings.TrimPrefix(in, "+")), ""
		}
		if f.Kind == "integer" && x != math.Trunc(x) {
			return nil, "a whole number"
		}
		if f.Min != nil && x < *f.Min {
			return nil, fmt.Sprintf("at least %s", fmtNum(*f.Min))
		}
		if f.Max != nil && x > *f.Max {
			return nil, fmt.Sprintf("at most %s", fmtNum(*f.Max))
		}
		return json.RawMessage(fmtNum(x)), ""
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(in)) {
		case "y", "yes", "true":
			return json.RawMessage("true"), ""
		case "n", "no", "false":
			return json.RawMessage("false"), ""
		}
		return nil, "yes or no"
	case "enum":
		if v, ok := f.pick(in); ok {
			b, _ := json.Marshal(v)
			return b, ""
		}
		return nil, "one of the choices (its number or its value)"
	case "multi":
		var vals []string
		seen := map[string]bool{}
		for _, part := range strings.Split(in, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			v, ok := f.pick(part)
			if !ok {
				return nil, fmt.Sprintf("choices separated by commas (%q is not one)", part)
			}
			if !seen[v] { // a choice given twice counts once
				seen[v] = true
				vals = append(vals, v)
			}
		}
		if f.MinLen != nil && len(vals) < *f.MinLen {
			return nil, fmt.Sprintf("at least %d %s", *f.MinLen, plural(*f.MinLen, "choice"))
		}
		if f.MaxLen != nil && len(vals) > *f.MaxLen {
			return nil, fmt.Sprintf("at most %d %s", *f.MaxLen, plural(*f.MaxLen, "choice"))
		}
		if vals == nil {
			vals = []string{}
		}
		b, _ := json.Marshal(vals)
		return b, ""
	}
	return nil, "a value mcpx cannot ask for"
}

// pick finds a choice by its number (from 1) or its value.
func (f *field) pick(in string) (string, bool) {
	in = strings.TrimSpace(in)
	if n, err := strconv.Atoi(in); err == nil && n >= 1 && n <= len(f.Choices) {
		return f.Choices[n-1].Value, true
	}
	if f.isChoice(in) {
		return in, true
	}
	return "", false
}

// wholeDigits is an integer as JSON writes it (a sign allowed, no leading zero).
var wholeDigits = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// checkFormat checks the string formats of the elicitation schema.
func checkFormat(format, in string) string {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(in); err != nil || a.Address != in {
			return "an email address"
		}
	case "uri":
		if u, err := url.Parse(in); err != nil || u.Scheme == "" {
			return "an absolute URI"
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, in); err != nil {
			return "a date (YYYY-MM-DD)"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, in); err != nil {
			return "a date and time (RFC 3339)"
		}
	}
	return ""
}

// defaultOK reports whether the field's default is a valid value of it.
func (f *field) defaultOK() bool {
	if f.Default == nil || f.Kind == "" {
		return false
	}
	d := gjson.ParseBytes(f.Default)
	switch f.Kind {
	case "enum":
		return d.Type == gjson.String && f.isChoice(d.String())
	case "string":
		if d.Type != gjson.String {
			return false
		}
		_, msg := f.check(d.String())
		return msg == ""
	case "number", "integer":
		if d.Type != gjson.Number {
			return false
		}
		_, msg := f.check(d.Raw)
		return msg == ""
	case "boolean":
		return d.IsBool()
	case "multi":
		if !d.IsArray() {
			return false
		}
		n := 0
		seen := map[string]bool{}
		for _, v := range d.Array() {
			if v.Type != gjson.String || !f.isChoice(v.String()) || seen[v.String()] {
				return false
			}
			seen[v.String()] = true
			n++
		}
		return (f.MinLen == nil || n >= *f.MinLen) && (f.MaxLen == nil || n <= *f.MaxLen)
	}
	return false
}

// isChoice reports whether v is one of the field's choice values exactly.
func (f *field) isChoice(v string) bool {
	if f.values == nil {
		f.values = make(map[string]bool, len(f.Choices))
		for _, c := range f.Choices {
			f.values[c.Value] = true
		}
	}
	return f.values[v]
}

// line makes a server's string one line of at most n characters, secrets
// masked before it is cut (a secret cut short would not be masked). Only a
// window at its start is looked at: a 10 MiB log message is not copied
// whole to show 500 characters of it (see render.MaskedHead).
func (a *app) line(s string, n int) string {
	head, more := render.MaskedHead(a.s.Secrets(), s, n)
	return render.ClipHead(text.Squash(head), more, n)
}

// clip and quote are render.Clip and render.Quote for a server's string in
// a message, its secrets masked before it is cut, so that a cut never
// shows the start of a secret in clear (see SECRETS in mcpx(1)).
func (a *app) clip(s string, n int) string  { return render.ClipMasked(a.s.Secrets(), s, n) }
func (a *app) quote(s string, n int) string { return render.QuoteMasked(a.s.Secrets(), s, n) }

// object writes the answers as one JSON object, in the schema's order.
func object(fields []field, values map[string]json.RawMessage) json.RawMessage {
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

// elicitor answers a connection's elicitations: on the terminal when mcpx
// may ask (clk paused meanwhile), else by itself. ctx is the command's,
// which an interrupt ends; stdinUsed: stdin gave a value, so nothing can
// be asked on it.
func (a *app) elicitor(ctx context.Context, clk *clock, stdinUsed bool) func(context.Context, client.Elicitation) client.Answer {
	return func(_ context.Context, e client.Elicitation) client.Answer {
		// One question at a time, whichever server asks (catalog --all).
		a.elicitMu.Lock()
		defer a.elicitMu.Unlock()
		if ctx.Err() != nil { // interrupted: the questions still queued are not asked
			return client.Answer{Action: "cancel"}
		}
		msg := a.line(e.Message, 500)
		if e.Mode == "url" {
			return a.elicitURL(ctx, clk, e, msg, stdinUsed)
		}
		fields := formFields(e.Schema)
		if !a.interactive(stdinUsed) {
			return a.elicitDefaults(e.Server, msg, fields, a.notAsked(stdinUsed))
		}
		defer a.asking(clk)()
		ans, err := a.askForm(ctx, e.Server, msg, fields)
		if err != nil {
			a.log.Note("server %q: elicitation cancelled (%s)", e.Server, askErr(err))
			return client.Answer{Action: "cancel"}
		}
		return ans
	}
}

func askErr(err error) string {
	switch {
	case errors.Is(err, io.EOF):
		return "end of input"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "interrupted"
	}
	return err.Error()
}

// asking stops the --timeout clock and the progress line while a person
// answers; the function it returns starts them again.
func (a *app) asking(clk *clock) func() {
	clk.pause()
	a.askingNow.Store(true)
	a.log.Progress("")
	return func() {
		a.askingNow.Store(false)
		clk.resume()
	}
}

// notAsked says why mcpx answered an elicitation itself.
func (a *app) notAsked(stdinUsed bool) string {
	why := "stderr is not a terminal"
	switch {
	case a.g.noInput:
		why = "--no-input"
	case a.g.json:
		why = "--json"
	case stdinUsed:
		why = "stdin gave a value"
	case !a.s.InTTY:
		why = "stdin is not a terminal"
	}
	return "not asked: " + why
}

// elicitDefaults is the answer when nobody can be asked (why): accept with
// the schema's defaults when every required field has one, else decline.
func (a *app) elicitDefaults(server, msg string, fields []field, why string) client.Answer {
	values := map[string]json.RawMessage{}
	var shown, missing []string
	for i := range fields {
		f := &fields[i]
		if f.defaultOK() {
			values[f.Name] = f.Default
			shown = append(shown, a.line(f.Name, 80)+"="+a.line(text.CompactJSON(f.Default), 80))
			continue
		}
		if f.Required {
			missing = append(missing, strconv.Quote(a.line(f.Name, 80)))
		}
	}
	if len(missing) > 0 {
		a.log.Note("server %q asked: %s; declined (%s), since %s %s no default", server, msg, why, strings.Join(missing, ", "), map[bool]string{true: "has", false: "have"}[len(missing) == 1])
		return client.Answer{Action: "decline"}
	}
	with := "no values (no field has a default)"
	if len(shown) > 0 {
		with = "the defaults " + strings.Join(shown, ", ")
	}
	a.log.Note("server %q asked: %s; accepted with %s (%s)", server, msg, with, why)
	return client.Answer{Action: "accept", Content: object(fields, values)}
}

// elicitURL shows the URL; the answer is the user's consent to open it
// (mcpx never opens it itself), or decline when nobody can be asked.
func (a *app) elicitURL(ctx context.Context, clk *clock, e client.Elicitation, msg string, stdinUsed bool) client.Answer {
	u := a.line(e.URL, 2000)
	if !a.interactive(stdinUsed) {
		a.log.URL(fmt.Sprintf("server %q asks you to open a URL: %s", e.Server, msg), u)
		a.log.Note("server %q: declined the URL request (%s)", e.Server, a.notAsked(stdinUsed))
		return client.Answer{Action: "decline"}
	}
	defer a.asking(clk)()
	a.log.URL(fmt.Sprintf("server %q asks you to open a URL: %s", e.Server, msg), u)
	for {
		line, err := a.askLine(ctx, "open it yourself, then answer: [y]es, I will / [n]o, decline / [c]ancel: ")
		if err != nil {
			a.log.Note("server %q: URL request cancelled (%s)", e.Server, askErr(err))
			return client.Answer{Action: "cancel"}
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			a.log.Note("server %q: URL request accepted", e.Server)
			return client.Answer{Action: "accept"}
		case "n", "no":
			a.log.Note("server %q: URL request declined", e.Server)
			return client.Answer{Action: "decline"}
		case "c", "cancel":
			a.log.Note("server %q: URL request cancelled", e.Server)
			return client.Answer{Action: "cancel"}
		}
		a.log.Ask("answer y, n or c" + "\n")
	}
}

// askForm asks for each field on the terminal, after the user agrees to
// answer at all.
func (a *app) askForm(ctx context.Context, server, msg string, fields []field) (client.Answer, error) {
	a.log.Askf("mcpx: server %q asks: %s\n", server, msg)
	for {
		line, err := a.askLine(ctx, "answer? [y]es / [n]o, decline / [c]ancel: ")
		if err != nil {
			return client.Answer{}, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "n", "no":
			a.log.Note("server %q: elicitation declined", server)
			return client.Answer{Action: "decline"}, nil
		case "c", "cancel":
			a.log.Note("server %q: elicitation cancelled", server)
			return client.Answer{Action: "cancel"}, nil
		case "y", "yes", "":
		default:
			a.log.Ask("answer y, n or c" + "\n")
			continue
		}
		break
	}
	values := map[string]json.RawMessage{}
	for i := range fields {
		f := &fields[i]
		if f.Kind == "" {
			if f.Required {
				a.log.Note("server %q: field %q is of a kind mcpx cannot ask for; elicitation declined", server, a.line(f.Name, 80))
				return client.Answer{Action: "decline"}, nil
			}
			continue
		}
		v, err := a.askField(ctx, f)
		if err != nil {
			return client.Answer{}, err
		}
		if v != nil {
			values[f.Name] = v
			// What the user types for a field whose name says it is a
			// secret (password, apiKey) is one from now on: masked in
			// the note below and in whatever the server sends back.
			var typed string
			if config.IsSecretName(f.Name) && json.Unmarshal(v, &typed) == nil {
				a.s.AddSecrets(typed)
			}
		}
	}
	content := object(fields, values)
	a.log.Note("server %q: elicitation accepted with %s", server, a.clip(string(content), 500))
	return client.Answer{Action: "accept", Content: content}, nil
}

// askField asks for one field until the answer fits: an empty answer takes
// the default, or leaves an optional field out.
func (a *app) askField(ctx context.Context, f *field) (json.RawMessage, error) {
	label := a.line(f.Name, 80)
	if f.Title != "" {
		label = a.line(f.Title, 80) + " (" + label + ")"
	}
	var about []string
	switch f.Kind {
	case "enum", "multi":
		var cs []string
		for i, c := range f.Choices {
			s := fmt.Sprintf("%d) %s", i+1, a.line(c.Value, 80))
			if c.Title != "" && c.Title != c.Value {
				s += " " + a.line(c.Title, 80)
			}
			cs = append(cs, s)
		}
		kind := "one of"
		if f.Kind == "multi" {
			kind = "any of, comma-separated,"
		}
		about = append(about, kind+" "+strings.Join(cs, ", "))
	case "boolean":
		about = append(about, "yes/no")
	default:
		about = append(about, f.Kind)
		if f.Format != "" {
			about = append(about, a.line(f.Format, 40))
		}
	}
	if f.defaultOK() {
		about = append(about, "default "+a.line(text.CompactJSON(f.Default), 80))
	} else if !f.Required {
		about = append(about, "optional")
	}
	if f.Desc != "" {
		a.log.Askf("  %s\n", a.line(f.Desc, 200))
	}
	for {
		line, err := a.askLine(ctx, fmt.Sprintf("%s [%s]: ", label, strings.Join(about, "; ")))
		if err != nil {
			return nil, err
		}
		if line == "" {
			if f.defaultOK() {
				return f.Default, nil
			}
			if !f.Required {
				return nil, nil
			}
			a.log.Askf("%s is required\n", label)
			continue
		}
		v, want := f.check(line)
		if want == "" {
			return v, nil
		}
		a.log.Askf("%s must be %s\n", label, want)
	}
}

// askLine prints a question on stderr and reads one line from stdin, where
// an interrupt cannot block it.
func (a *app) askLine(ctx context.Context, question string) (string, error) {
	a.log.Progress("")
	a.log.Ask(question)
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := readLine(a.s.In)
		got <- read{line, err}
	}()
	select {
	case <-ctx.Done():
		a.log.Ask("\n")
		return "", ctx.Err()
	case r := <-got:
		if r.err != nil {
			a.log.Ask("\n")
			if errors.Is(r.err, io.EOF) && r.line != "" {
				return r.line, nil
			}
			return "", r.err
		}
		return r.line, nil
	}
}

// roots are the directories offered to t as roots: --root (which replaces
// the server's list), else the server's "roots", else none: the current
// directory is never offered unasked (see REQUESTS FROM SERVERS in mcpx(1)).
func (a *app) roots(t *config.Target) ([]client.Root, error) {
	if len(a.g.roots) == 0 {
		var roots []client.Root
		for i, d := range t.Roots {
			bad := func(why string) error {
				return &config.Error{Server: t.Name, Msg: fmt.Sprintf("roots[%d] %s: %s", i, d, why)}
			}
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				return nil, bad("not a directory")
			}
			r, err := client.RootFor(d)
			if err != nil {
				return nil, bad(err.Error())
			}
			roots = append(roots, r)
		}
		return roots, nil
	}
	var roots []client.Root
	for _, d := range a.g.roots {
		if d == "" { // "$UNSET" names no directory
			return nil, usagef("--root needs a directory (an empty value names none)")
		}
		if !filepath.IsAbs(d) && a.cwd != "" {
			d = filepath.Join(a.cwd, d)
		}
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			return nil, usagef("--root %s: not a directory", d)
		}
		r, err := client.RootFor(d)
		if err != nil {
			return nil, usagef("--root %s: %v", d, err)
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// onLog shows a server's log message at warning and above as a note (every
// level with -v, which also asks the server for debug).
func (a *app) onLog(m client.LogMessage) {
	if client.LogSeverity(m.Level) < client.LogSeverity("warning") && !a.g.verbose {
		return
	}
	data := string(m.Data)
	var s string
	if json.Unmarshal(m.Data, &s) == nil {
		data = s
	}
	who := ""
	if m.Logger != "" {
		who = " " + a.line(m.Logger, 80) + ":"
	}
	if data = a.line(data, 500); data != "" {
		data = " " + data
	}
	a.log.Note("server %q logged %s:%s%s", m.Server, a.line(m.Level, 20), who, data)
}

// onProgress draws the progress line (on a terminal only; see Log.Progress),
// except while a question is asked.
func (a *app) onProgress(p client.Progress) {
	if a.askingNow.Load() {
		return
	}
	frac := fmtNum(p.Progress)
	if p.Total > 0 {
		pct := math.Min(100, math.Max(0, 100*p.Progress/p.Total))
		frac = fmt.Sprintf("%s/%s (%d%%)", fmtNum(p.Progress), fmtNum(p.Total), int(pct))
	}
	a.log.Progress(fmt.Sprintf("mcpx: server %q: %s %s", p.Server, frac, p.Message))
}
