package commands

// Asking a person on the terminal: a server's elicitation (its form, or a
// URL to open) or mcpx's own answer when nobody can be asked, and a
// prompt's missing arguments. Questions go to stderr and answers come from
// stdin, a line at a time, read where an interrupt cannot block them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/schema"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// elicitor answers a connection's elicitations: on the terminal when mcpx
// may ask (clk paused meanwhile), else by itself. ctx is the command's,
// which an interrupt ends; stdinUsed: stdin gave a value, so nothing can
// be asked on it; op: the tool or prompt whose answers --answers gives
// (see answers.go).
func (a *app) elicitor(ctx context.Context, clk *clock, stdinUsed bool, op string) func(context.Context, client.Elicitation) client.Answer {
	stop := a.stopper(clk)
	return func(_ context.Context, e client.Elicitation) client.Answer {
		// One question at a time, whichever server asks (catalog --all).
		a.elicitMu.Lock()
		defer a.elicitMu.Unlock()
		if ctx.Err() != nil { // interrupted: the questions still queued are not asked
			return client.Answer{Action: "cancel", Interrupted: true}
		}
		msg := a.line(e.Message, 500)
		if e.Mode == "url" {
			if !a.interactive(stdinUsed) && a.g.onInput == onInputFail {
				a.log.URL(fmt.Sprintf("server %q asks you to open a URL: %s", e.Server, msg), a.line(e.URL, 2000))
				stop(needsInput{Server: e.Server, Message: e.Message, URL: e.URL}.err())
				return client.Answer{Action: "cancel", Stop: true}
			}
			return a.elicitURL(ctx, clk, e, msg, stdinUsed)
		}
		fields := schema.Fields(e.Schema)
		given, err := a.givenFor(e.Server, op, fields)
		if err != nil {
			stop(err)
			return client.Answer{Action: "cancel", Stop: true}
		}
		if !a.interactive(stdinUsed) {
			return a.headlessForm(e, msg, fields, given, a.notAsked(stdinUsed), stop)
		}
		defer a.asking(clk)()
		ans, err := a.askForm(ctx, e.Server, msg, fields, given)
		if err != nil {
			a.log.Note("server %q: elicitation cancelled (%s)", e.Server, askErr(err))
			return client.Answer{Action: "cancel", Interrupted: interrupt(err)}
		}
		return ans
	}
}

// interrupt reports whether a question ended by an interrupt (its
// context's end), not by its input.
func interrupt(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
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
func (a *app) elicitDefaults(server, msg string, fields []schema.Field, why string) client.Answer {
	values := map[string]json.RawMessage{}
	var shown, missing []string
	for i := range fields {
		f := &fields[i]
		if f.DefaultOK() {
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
			return client.Answer{Action: "cancel", Interrupted: interrupt(err)}
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
func (a *app) askForm(ctx context.Context, server, msg string, fields []schema.Field, given map[string]json.RawMessage) (client.Answer, error) {
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
		if v, ok := given[f.Name]; ok { // answered on the command line
			values[f.Name] = v
			continue
		}
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
				a.s.Secrets().Add(typed)
			}
		}
	}
	content := object(fields, values)
	a.log.Note("server %q: elicitation accepted with %s", server, a.clip(string(content), 500))
	return client.Answer{Action: "accept", Content: content}, nil
}

// askField asks for one field until the answer fits: an empty answer takes
// the default, or leaves an optional field out.
func (a *app) askField(ctx context.Context, f *schema.Field) (json.RawMessage, error) {
	label := a.line(f.Name, 80)
	if f.Title != "" {
		label = a.line(f.Title, 80) + " (" + label + ")"
	}
	about := a.fieldAbout(f)
	if f.Desc != "" {
		a.log.Askf("  %s\n", a.line(f.Desc, 200))
	}
	for {
		line, err := a.askLine(ctx, fmt.Sprintf("%s [%s]: ", label, strings.Join(about, "; ")))
		if err != nil {
			return nil, err
		}
		if line == "" {
			if f.DefaultOK() {
				return f.Default, nil
			}
			if !f.Required {
				return nil, nil
			}
			a.log.Askf("%s is required\n", label)
			continue
		}
		v, want := f.Check(line)
		if want == "" {
			return v, nil
		}
		a.log.Askf("%s must be %s\n", label, want)
	}
}

// fieldAbout is what the question for a field says of it: its choices or
// kind, format, default, or that it is optional.
func (a *app) fieldAbout(f *schema.Field) []string {
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
	if f.DefaultOK() {
		about = append(about, "default "+a.line(text.CompactJSON(f.Default), 80))
	} else if !f.Required {
		about = append(about, "optional")
	}
	return about
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

// interactive reports whether mcpx may ask the user for input: stdin and
// stderr are terminals, --no-input is not set, stdin is not a value, and
// stderr is not a stream of JSON objects (--json).
func (a *app) interactive(stdinUsed bool) bool {
	return a.s.InTTY && a.s.ErrTTY && !a.g.noInput && !stdinUsed && !a.g.json
}

// askPromptArgs asks on the terminal for each missing required argument,
// showing its description, until it gets a value (end of input is a usage
// error; an interrupt ends it at once).
func (a *app) askPromptArgs(ctx context.Context, prompt string, missing []client.PromptArgument, values map[string]string) error {
	lines := make(chan string)
	errc := make(chan error, 1)
	next := func() { // one line from stdin, read where an interrupt cannot block it
		go func() {
			line, err := readLine(a.s.In)
			if err != nil {
				errc <- err
				return
			}
			lines <- line
		}()
	}
	for _, m := range missing {
		name := a.clip(m.Name, 200) // the server's: one line
		desc := ""
		if m.Description != nil && *m.Description != "" {
			desc = " (" + a.line(*m.Description, 200) + ")"
		}
		for {
			fmt.Fprintf(a.s.Err, "prompt %q needs %s%s: ", prompt, name, desc)
			next()
			select {
			case <-ctx.Done():
				fmt.Fprintln(a.s.Err)
				return ctx.Err()
			case err := <-errc:
				fmt.Fprintln(a.s.Err)
				if errors.Is(err, io.EOF) {
					return &fail.Error{Code: fail.Usage, Message: fmt.Sprintf("no value given for the required argument %q of prompt %q", m.Name, prompt),
						Details: map[string]any{"missing": []string{m.Name}}}
				}
				return err
			case line := <-lines:
				if line != "" {
					values[m.Name] = line
					break
				}
				fmt.Fprintf(a.s.Err, "%s is required\n", name)
				continue
			}
			break
		}
	}
	return nil
}

// readLine reads one line (without its line ending) byte by byte, so that
// nothing after it is consumed. EOF with a partial line returns the line.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(c[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) && b.Len() > 0 {
				return b.String(), nil
			}
			return "", err
		}
	}
}
