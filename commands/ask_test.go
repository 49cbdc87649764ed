package commands

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/output"
)

// elApp is an app over buffers: stdin reads in, tty sets the three
// terminal flags; it returns the app and its stderr.
func elApp(in io.Reader, tty bool) (*app, *bytes.Buffer) {
	var out, errb bytes.Buffer
	s := output.New(in, &out, &errb, tty, tty, tty)
	return &app{s: s, log: output.NewLog(s, false, false), getenv: func(string) string { return "" }}, &errb
}

// elAsk runs the app's elicitor on one elicitation, the clock of the
// connection running meanwhile.
func elAsk(t *testing.T, a *app, e client.Elicitation) client.Answer {
	t.Helper()
	clk, cancel := newClock(context.Background(), time.Minute)
	defer cancel()
	if e.Server == "" {
		e.Server = "s"
	}
	return a.elicitor(context.Background(), clk, false, "")(context.Background(), e)
}

const elWhy = "(not asked: stdin is not a terminal)"

// TestElicitDefaults: with nobody to ask, mcpx accepts with the defaults
// when every required field has a valid one, and declines otherwise; the
// answer is a note.
func TestElicitDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, message, schema string
		action, content       string
		note                  string
	}{
		{"all defaults", "Who?", `{"type":"object","properties":{"name":{"type":"string","default":"bob"},"n":{"type":"integer","default":3},"opt":{"type":"boolean"},"tags":{"type":"array","items":{"enum":["x","y"]},"default":["y", "x"]}},"required":["name","n"]}`,
			"accept", `{"name":"bob","n":3,"tags":["y","x"]}`,
			`server "s" asked: Who?; accepted with the defaults name="bob", n=3, tags=["y","x"] ` + elWhy},
		{"no fields", "Continue?", `{"type":"object","properties":{}}`,
			"accept", `{}`, `server "s" asked: Continue?; accepted with no values (no field has a default) ` + elWhy},
		{"only optional fields", "Notes?", `{"properties":{"a":{"type":"string"},"b":{"type":"string","default":7}}}`,
			"accept", `{}`, `server "s" asked: Notes?; accepted with no values (no field has a default) ` + elWhy},
		{"one required missing", "Name?", `{"properties":{"name":{"type":"string"},"n":{"type":"integer","default":1}},"required":["name"]}`,
			"decline", ``, `server "s" asked: Name?; declined ` + elWhy + `, since "name" has no default`},
		{"two required missing", "Both?", `{"properties":{"a":{"type":"string"},"b":{"type":"boolean"}},"required":["b","a"]}`,
			"decline", ``, `server "s" asked: Both?; declined ` + elWhy + `, since "a", "b" have no default`},
		{"invalid default", "Age?", `{"properties":{"age":{"type":"integer","default":"3"}},"required":["age"]}`,
			"decline", ``, `server "s" asked: Age?; declined ` + elWhy + `, since "age" has no default`},
		{"default outside the enum", "Color?", `{"properties":{"c":{"type":"string","enum":["r","g"],"default":"purple"}},"required":["c"]}`,
			"decline", ``, `server "s" asked: Color?; declined ` + elWhy + `, since "c" has no default`},
		{"default breaking the format", "Mail?", `{"properties":{"m":{"type":"string","format":"email","default":"nobody"}},"required":["m"]}`,
			"decline", ``, `server "s" asked: Mail?; declined ` + elWhy + `, since "m" has no default`},
		{"required field of no kind", "Ref?", `{"properties":{"r":{"$ref":"#/x","default":"a"}},"required":["r"]}`,
			"decline", ``, `server "s" asked: Ref?; declined ` + elWhy + `, since "r" has no default`},
		{"required but not a property", "Ghost?", `{"properties":{"a":{"type":"string","default":"x"}},"required":["ghost"]}`,
			"accept", `{"a":"x"}`, `server "s" asked: Ghost?; accepted with the defaults a="x" ` + elWhy},
		{"message on one line", "Line one\n\tline   two", `{"properties":{}}`,
			"accept", `{}`, `server "s" asked: Line one line two; accepted with no values (no field has a default) ` + elWhy},
		{"long message clipped", strings.Repeat("m", 600), `{"properties":{}}`,
			"accept", `{}`, `server "s" asked: ` + strings.Repeat("m", 500) + `...; accepted with no values (no field has a default) ` + elWhy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader("y\n"), false)
			ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: tc.message, Schema: raw(tc.schema)})
			if ans.Action != tc.action || string(ans.Content) != tc.content {
				t.Errorf("answer %s %s, want %s %s", ans.Action, ans.Content, tc.action, tc.content)
			}
			if got, want := stderr.String(), "mcpx: note: "+tc.note+"\n"; got != want {
				t.Errorf("stderr\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestElicitDefaultsChoiceNumber: a default that is a choice's number, not
// one of the enum's values, is no valid default.
func TestElicitDefaultsChoiceNumber(t *testing.T) {
	a, stderr := elApp(nil, false)
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "Color?",
		Schema: raw(`{"properties":{"c":{"type":"string","enum":["red","green"],"default":"2"}},"required":["c"]}`)})
	if ans.Action != "decline" || ans.Content != nil {
		t.Errorf("answer %s %s (stderr %q), want decline: \"2\" is not one of the enum's values", ans.Action, ans.Content, stderr)
	}
}

// TestElicitNotInteractive: each reason not to ask gives mcpx's own answer.
func TestElicitNotInteractive(t *testing.T) {
	schema := raw(`{"properties":{"a":{"type":"string"}},"required":["a"]}`)
	for _, tc := range []struct {
		name      string
		set       func(a *app)
		tty       bool
		stdinUsed bool
		why       string
	}{
		{"no terminal", func(*app) {}, false, false, "(not asked: stdin is not a terminal)"},
		{"--no-input", func(a *app) { a.g.noInput = true }, true, false, "(not asked: --no-input)"},
		{"stdin used", func(*app) {}, true, true, "(not asked: stdin gave a value)"},
		{"--json", func(a *app) { a.g.json = true }, true, false, "(not asked: --json)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader("y\nvalue\n"), tc.tty)
			tc.set(a)
			if a.g.json {
				a.log = output.NewLog(a.s, true, false)
			}
			clk, stop := newClock(context.Background(), time.Minute)
			defer stop()
			ans := a.elicitor(context.Background(), clk, tc.stdinUsed, "")(context.Background(),
				client.Elicitation{Server: "s", Mode: "form", Message: "A?", Schema: schema})
			if ans.Action != "decline" {
				t.Errorf("answer %+v", ans)
			}
			want := "mcpx: note: server \"s\" asked: A?; declined " + tc.why + ", since \"a\" has no default\n"
			if a.g.json {
				want = `{"note":"server \"s\" asked: A?; declined ` + tc.why + `, since \"a\" has no default"}` + "\n"
			}
			if stderr.String() != want {
				t.Errorf("stderr\n got %q\nwant %q", stderr, want)
			}
		})
	}
}

func TestElicitURL(t *testing.T) {
	e := client.Elicitation{Mode: "url", Message: "Sign in\nplease", URL: "https://auth.example/cb?x=1", ID: "el-1"}
	shown := "mcpx: server \"s\" asks you to open a URL: Sign in please:\nhttps://auth.example/cb?x=1\n"
	question := "open it yourself, then answer: [y]es, I will / [n]o, decline / [c]ancel: "

	a, stderr := elApp(nil, false)
	if ans := elAsk(t, a, e); ans.Action != "decline" || ans.Content != nil {
		t.Errorf("not interactive: %+v", ans)
	}
	if want := shown + "mcpx: note: server \"s\": declined the URL request " + elWhy + "\n"; stderr.String() != want {
		t.Errorf("not interactive\n got %q\nwant %q", stderr, want)
	}

	a, stderr = elApp(nil, true)
	a.g.json = true
	a.log = output.NewLog(a.s, true, false)
	if ans := elAsk(t, a, e); ans.Action != "decline" {
		t.Errorf("--json: %+v", ans)
	}
	if want := `{"note":"server \"s\" asks you to open a URL: Sign in please","url":"https://auth.example/cb?x=1"}` + "\n" +
		`{"note":"server \"s\": declined the URL request (not asked: --json)"}` + "\n"; stderr.String() != want {
		t.Errorf("--json\n got %q\nwant %q", stderr, want)
	}

	for _, tc := range []struct {
		in, action, after string
	}{
		{"y\n", "accept", question + "mcpx: note: server \"s\": URL request accepted\n"},
		{"what\n YES \n", "accept", question + "answer y, n or c\n" + question + "mcpx: note: server \"s\": URL request accepted\n"},
		{"n\n", "decline", question + "mcpx: note: server \"s\": URL request declined\n"},
		{"No", "decline", question + "mcpx: note: server \"s\": URL request declined\n"}, // end of input ends the line
		{"c\n", "cancel", question + "mcpx: note: server \"s\": URL request cancelled\n"},
		{"cancel\n", "cancel", question + "mcpx: note: server \"s\": URL request cancelled\n"},
		{"maybe\n", "cancel", question + "answer y, n or c\n" + question + "\nmcpx: note: server \"s\": URL request cancelled (end of input)\n"},
	} {
		a, stderr := elApp(strings.NewReader(tc.in), true)
		if ans := elAsk(t, a, e); ans.Action != tc.action || ans.Content != nil {
			t.Errorf("%q: %+v, want %s", tc.in, ans, tc.action)
		}
		if want := shown + tc.after; stderr.String() != want {
			t.Errorf("%q\n got %q\nwant %q", tc.in, stderr, want)
		}
	}
}

// elForm is a form with a field of each kind.
const elForm = `{"type":"object","properties":{
	"name":{"type":"string","title":"Your name","description":"First and\nlast name","minLength":2},
	"age":{"type":"integer","minimum":0,"maximum":150,"default":30},
	"color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]},
	"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"b"}]},"maxItems":1},
	"mail":{"type":"string","format":"email"},
	"ok":{"type":"boolean"},
	"ref":{"$ref":"#/$defs/x"}
},"required":["name","color"]}`

// TestAskForm: the whole exchange on a terminal, answer by answer.
func TestAskForm(t *testing.T) {
	const (
		answer = "answer? [y]es / [n]o, decline / [c]ancel: "
		name   = "Your name (name) [string]: "
		age    = "age [integer; default 30]: "
		color  = "color [one of 1) r Red, 2) g Green]: "
		tags   = "tags [any of, comma-separated, 1) a Alpha, 2) b; optional]: "
		mail   = "mail [string; email; optional]: "
		ok     = "ok [yes/no; optional]: "
	)
	head := "mcpx: server \"s\" asks: Tell me more\n"
	for _, tc := range []struct {
		name, in        string
		action, content string
		stderr          string
	}{
		{"every check", "maybe\ny\n\nA\nAnn\nabc\n200\n\n3\nGreen\n2\na,b\n1\nann\nann@x.org\n\n",
			"accept", `{"name":"Ann","age":30,"color":"g","tags":["a"],"mail":"ann@x.org"}`,
			head + answer + "answer y, n or c\n" + answer + "  First and last name\n" +
				name + "Your name (name) is required\n" +
				name + "Your name (name) must be at least 2 characters\n" +
				name + age + "age must be a number\n" +
				age + "age must be at most 150\n" +
				age + color + "color must be one of the choices (its number or its value)\n" +
				color + "color must be one of the choices (its number or its value)\n" +
				color + tags + "tags must be at most 1 choice\n" +
				tags + mail + "mail must be an email address\n" +
				mail + ok +
				"mcpx: note: server \"s\": elicitation accepted with {\"name\":\"Ann\",\"age\":30,\"color\":\"g\",\"tags\":[\"a\"],\"mail\":\"ann@x.org\"}\n"},
		{"empty answer is yes, values typed", "\nBo\n7\nr\n\n\nno\n",
			"accept", `{"name":"Bo","age":7,"color":"r","ok":false}`,
			head + answer + "  First and last name\n" + name + age + color + tags + mail + ok +
				"mcpx: note: server \"s\": elicitation accepted with {\"name\":\"Bo\",\"age\":7,\"color\":\"r\",\"ok\":false}\n"},
		{"decline", "n\n", "decline", ``, head + answer + "mcpx: note: server \"s\": elicitation declined\n"},
		{"decline spelled", " No \n", "decline", ``, head + answer + "mcpx: note: server \"s\": elicitation declined\n"},
		{"cancel", "c\n", "cancel", ``, head + answer + "mcpx: note: server \"s\": elicitation cancelled\n"},
		{"end of input at the start", "", "cancel", ``,
			head + answer + "\nmcpx: note: server \"s\": elicitation cancelled (end of input)\n"},
		{"end of input in the form", "y\nAnn\n", "cancel", ``,
			head + answer + "  First and last name\n" + name + age + "\nmcpx: note: server \"s\": elicitation cancelled (end of input)\n"},
		{"last line without a newline", "y\nAnn\n\n1\n\n\nyes", "accept", `{"name":"Ann","age":30,"color":"r","ok":true}`,
			head + answer + "  First and last name\n" + name + age + color + tags + mail + ok +
				"mcpx: note: server \"s\": elicitation accepted with {\"name\":\"Ann\",\"age\":30,\"color\":\"r\",\"ok\":true}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader(tc.in), true)
			ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "Tell me\nmore", Schema: raw(elForm)})
			if ans.Action != tc.action || string(ans.Content) != tc.content {
				t.Errorf("answer %s %s, want %s %s", ans.Action, ans.Content, tc.action, tc.content)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr\n got %q\nwant %q", stderr, tc.stderr)
			}
		})
	}
}

// TestAskFormSecret: what is typed for a field whose name marks a secret
// (the TypeScript SDK's elicitation example asks for "password") is masked
// in the note that reports the answer, and from then on.
func TestAskFormSecret(t *testing.T) {
	a, stderr := elApp(strings.NewReader("y\nalice\nhunter22\n"), true)
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"username":{"type":"string"},"password":{"type":"string","minLength":8}},"required":["username","password"]}`)})
	if ans.Action != "accept" || string(ans.Content) != `{"username":"alice","password":"hunter22"}` {
		t.Errorf("answer %s %s", ans.Action, ans.Content)
	}
	want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: username [string]: password [string]: " +
		"mcpx: note: server \"s\": elicitation accepted with {\"username\":\"alice\",\"password\":\"***\"}\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
	if got := a.s.Secrets().Mask("welcome alice, your password is hunter22"); got != "welcome alice, your password is ***" {
		t.Errorf("later output: %q", got)
	}
}

// TestAskFormRequiredUnaskable: a required field mcpx cannot ask for
// declines the form; an optional one is skipped.
func TestAskFormRequiredUnaskable(t *testing.T) {
	a, stderr := elApp(strings.NewReader("y\nx\n"), true)
	ans := elAsk(t, a, client.Elicitation{Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"s":{"type":"string"},"o":{"type":"object"}},"required":["o"]}`)})
	if ans.Action != "decline" || ans.Content != nil {
		t.Errorf("answer %+v", ans)
	}
	want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: s [string; optional]: " +
		"mcpx: note: server \"s\": field \"o\" is of a kind mcpx cannot ask for; elicitation declined\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}

	a, stderr = elApp(strings.NewReader("y\n"), true)
	ans = elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"o":{"type":"object"}}}`)})
	if ans.Action != "accept" || string(ans.Content) != `{}` {
		t.Errorf("optional: %s %s", ans.Action, ans.Content)
	}
	if want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: mcpx: note: server \"s\": elicitation accepted with {}\n"; stderr.String() != want {
		t.Errorf("optional\n got %q\nwant %q", stderr, want)
	}
}

// TestAskFormInterrupted: an interrupt ends the question at once (stdin
// still open) and cancels the elicitation.
func TestAskFormInterrupted(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	a, stderr := elApp(inR, true)
	clk, stop := newClock(context.Background(), time.Minute)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	ans := a.elicitor(ctx, clk, false, "")(context.Background(), client.Elicitation{Server: "s", Mode: "form", Message: "M", Schema: raw(`{"properties":{}}`)})
	if ans.Action != "cancel" {
		t.Errorf("answer %+v", ans)
	}
	if want := "mcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: \nmcpx: note: server \"s\": elicitation cancelled (interrupted)\n"; stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
}

// TestElicitPausesClock: the connection's clock stops while a person
// answers, and runs again with the time that was left.
func TestElicitPausesClock(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	a, _ := elApp(inR, true)
	clk, stop := newClock(context.Background(), 80*time.Millisecond)
	defer stop()
	go func() {
		time.Sleep(200 * time.Millisecond) // longer than the clock's time
		_, _ = io.WriteString(inW, "y\nfine\n")
	}()
	ans := a.elicitor(context.Background(), clk, false, "")(context.Background(), client.Elicitation{Server: "s", Mode: "form", Message: "M",
		Schema: raw(`{"properties":{"a":{"type":"string"}}}`)})
	if ans.Action != "accept" || string(ans.Content) != `{"a":"fine"}` {
		t.Errorf("answer %s %s", ans.Action, ans.Content)
	}
	if err := clk.ctx.Err(); err != nil {
		t.Fatalf("the clock ran out while a person answered: %v", context.Cause(clk.ctx))
	}
	select {
	case <-clk.ctx.Done():
		if !timedOut(clk.ctx, clk.ctx.Err()) {
			t.Errorf("ended with %v", context.Cause(clk.ctx))
		}
	case <-time.After(2 * time.Second):
		t.Error("the clock never ran out after the answer")
	}
}

// TestElicitProgressLine: the question starts on a line of its own when a
// progress line is shown.
func TestElicitProgressLine(t *testing.T) {
	a, stderr := elApp(strings.NewReader("n\n"), true)
	a.onProgress(client.Progress{Server: "s", Progress: 1, Total: 2})
	elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{}}`)})
	want := "mcpx: server \"s\": 1/2 (50%)\r\x1b[Kmcpx: server \"s\" asks: M\nanswer? [y]es / [n]o, decline / [c]ancel: mcpx: note: server \"s\": elicitation declined\n"
	if stderr.String() != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
}

// TestServerTextOneLine: what a server names (a log level, a field, a
// choice, a URL) cannot start a line of its own on stderr, where it could
// pass for mcpx's own words.
func TestServerTextOneLine(t *testing.T) {
	const fake = "\nmcpx: error: x"
	for _, tc := range []struct {
		name string
		run  func(a *app)
	}{
		{"log level", func(a *app) {
			a.onLog(client.LogMessage{Server: "s", Level: "e" + fake, Data: raw(`"x"`)})
		}},
		{"field name in the defaults note", func(a *app) {
			a.s = output.New(nil, io.Discard, a.s.Err, false, false, false)
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"a\nmcpx: error: x":{"type":"string","default":"x"}}}`)})
		}},
		{"field name asked", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"a\nmcpx: error: x":{"type":"string"}}}`)})
		}},
		{"choice", func(a *app) {
			elAsk(t, a, client.Elicitation{Mode: "form", Message: "M", Schema: raw(`{"properties":{"c":{"type":"string","enum":["r\nmcpx: error: x"]}}}`)})
		}},
		{"url", func(a *app) {
			a.g.noInput = true
			elAsk(t, a, client.Elicitation{Mode: "url", Message: "M", URL: "https://x.example/" + fake, ID: "i"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, stderr := elApp(strings.NewReader("y\n\n"), true)
			tc.run(a)
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(line, "mcpx: error: x") {
					t.Errorf("a line of the server's: %q in\n%s", line, stderr)
				}
			}
		})
	}
}
