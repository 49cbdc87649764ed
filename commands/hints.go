// What would help, worded for the command line: the hints of the final
// error (see classify). Every error type below commands returns data (the
// scopes a server requires, the command that is not installed, ...); the
// flags, commands and config keys it points at are named here alone.

package commands

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpx-cli/mcpx/client/transport"
	"github.com/mcpx-cli/mcpx/internal/daemon"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/text"
)

// hints says what would help with f.
func hints(f fail.Failure) []string {
	switch e := f.(type) {
	case *fail.Error:
		return generalHints(e)
	case *fail.ConnectError:
		return connectHints(e)
	case *fail.AuthError:
		return authHints(e)
	case *fail.TimeoutError:
		if !errors.Is(e, daemon.ErrNoAnswer) {
			return timeoutHints(e)
		}
		switch {
		case e.Pid <= 0:
		case runtime.GOOS == "windows":
			return []string{fmt.Sprintf("taskkill /F /PID %d ends it, and its servers with it", e.Pid)}
		default:
			return []string{fmt.Sprintf("a daemon stopped by SIGSTOP goes on after: kill -CONT %d (kill -KILL %d ends it, and its servers with it)", e.Pid, e.Pid)}
		}
	}
	return nil
}

// generalHints says what would help with a failure that has no type of
// its own: the hints commands worded when it made e, and those its fields
// call for.
func generalHints(e *fail.Error) []string {
	switch e.Code {
	case fail.Usage:
		if e.What == "trustedProjects" {
			return append(slices.Clone(e.Hints), trustHint(e.Name))
		}
	case fail.NotFound:
		return append(slices.Clone(e.Hints), notFoundHints(e)...)
	case fail.NoMatch:
		if g, ok := jqPath(e.Name); ok {
			return []string{fmt.Sprintf("--select takes a gjson path, not jq's syntax: try --select %s", shellArg(g))}
		}
	case fail.ServerError:
		if e.What == "method" { // the server's error reply
			return urlElicitations(*e.RPC)
		}
	}
	return e.Hints
}

// jqPath reads a --select path that looks like jq's syntax (a leading
// '.', an index [N], [] or ["key"], or a pipe between filters) and returns
// its gjson spelling: .items[0].id is items.0.id, .items[].id is
// items.#.id, .a | .b is a.b. ok is false when path does not look like jq,
// or is not a plain path of those parts.
func jqPath(path string) (string, bool) {
	p := strings.TrimSpace(path)
	if !strings.HasPrefix(p, ".") && !strings.Contains(p, "[") && !strings.Contains(p, " | ") {
		return "", false
	}
	var parts []string
	for _, filter := range strings.Split(p, "|") {
		f := strings.TrimSpace(filter)
		if f == "" {
			return "", false
		}
		f = strings.TrimPrefix(f, ".")
		for f != "" {
			var part string
			switch {
			case strings.HasPrefix(f, "["):
				end := strings.IndexByte(f, ']')
				if end < 0 {
					return "", false
				}
				in := f[1:end]
				switch {
				case in == "":
					part = "#"
				case strings.Trim(in, "0123456789") == "":
					part = in
				case len(in) >= 2 && in[0] == '"' && in[len(in)-1] == '"' && !strings.ContainsAny(in[1:len(in)-1], `"\`):
					part = gjsonKey(in[1 : len(in)-1])
				default:
					return "", false
				}
				f = strings.TrimPrefix(f[end+1:], ".")
			default:
				end := strings.IndexAny(f, ".[")
				if end < 0 {
					end = len(f)
				}
				part = f[:end]
				if part == "" || strings.ContainsAny(part, " ()|,$") {
					return "", false
				}
				f = strings.TrimPrefix(f[end:], ".")
			}
			parts = append(parts, part)
		}
	}
	g := strings.Join(parts, ".")
	if g == "" || g == path {
		return "", false
	}
	return g, true
}

// gjsonKey escapes a key for a gjson path: its '.', '*', '?' and '|' are
// taken for syntax unless escaped.
func gjsonKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		if strings.ContainsRune(`.*?|#@\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func notFoundHints(e *fail.Error) []string {
	switch {
	case e.What == "server" && e.Source != "" && len(e.Known) > 0: // the NAME@SOURCE forms that define it
		return []string{"it is defined as " + strings.Join(e.Known, ", ")}
	case e.What == "server" && e.Source != "": // NAME@SOURCE, or import's names
		if len(e.Hints) > 0 {
			return nil
		}
		return []string{"list the servers and their sources with: mcpx servers"}
	case e.What == "server" && len(e.Known) > 0:
		return []string{"configured servers: " + strings.Join(e.Known, ", ") + " (and the built-in demo)"}
	case e.What == "server":
		return []string{"no servers are configured; try the built-in one: mcpx catalog demo"}
	case e.What == "task":
		return []string{"a task may belong to the session that started it (each mcpx run is a new session, unless --keep-alive keeps one warm), or have expired",
			"list the tasks the server keeps with: mcpx task list " + serverWord(e.Server)}
	case e.What == "resource" && e.Server != "":
		return []string{"see what it offers: mcpx catalog " + serverWord(e.Server) + " --kind resource --kind resource_template"}
	}
	return nil
}

func connectHints(e *fail.ConnectError) []string {
	var h []string
	var rel *transport.RelativeOnlyError
	switch {
	case errors.As(e, &rel):
		where := "only in the current directory"
		if rel.Elem != "" && rel.Elem != "." {
			where = fmt.Sprintf("only through the relative PATH element %q", rel.Elem)
		}
		use := "give its path in the server's \"command\""
		if rel.Abs != "" {
			use = fmt.Sprintf("give its path: \"command\": %s", jsonString(rel.Abs))
		}
		h = append(h, fmt.Sprintf("found %s %s, which mcpx never searches for a server's program; %s", rel.Found, where, use))
	case e.Command != "":
		h = append(h, fmt.Sprintf("is %q installed and on PATH?", e.Command))
	}
	if e.LegacySSE {
		h = append(h, "it may be a legacy SSE server: set \"type\": \"sse\" in its config entry")
	}
	if e.Speaks != "" {
		h = append(h, "ask for a version it speaks: --protocol-version "+e.Speaks)
	}
	return h
}

func timeoutHints(e *fail.TimeoutError) []string {
	if e.Phase == "login" {
		return []string{"login waits 5 minutes for the browser unless --timeout says otherwise"}
	}
	if len(e.Stdout) == 0 {
		return []string{"raise the bound with --timeout, or \"timeout\" in the server's config entry"}
	}
	// It spoke, but not JSON-RPC: more time will not help. Its lines, as
	// -v shows them.
	var h []string
	for _, l := range e.Stdout {
		what := "a non-JSON line"
		if l.JSON {
			what = "a JSON line that is not JSON-RPC"
		}
		h = append(h, fmt.Sprintf("it wrote %s on stdout, which mcpx skipped: %s", what, l.Text))
	}
	return append(h, "such a server was likely started for another transport (HTTP), or waits for an option: check its command and args (-v shows every line it writes)")
}

func authHints(e *fail.AuthError) []string {
	if e.Msg != "" { // a failure of the login flow
		if e.NoClient {
			return []string{`register mcpx with the authorization server (redirect URI http://127.0.0.1/callback, any port) and set "oauth": {"clientId": "...", "clientSecret": "${VAR}"} in the server's config entry`}
		}
		return nil
	}
	if e.Token == "grant" {
		switch e.Grant {
		case "jwt-bearer":
			return []string{`check the "oauth" entry of the server (its assertionFile or assertionEnv: a current identity token for the authorization server) and that its authorization server accepts it`}
		case "id-jag":
			return []string{`check the "oauth" entry of the server (its client, and the "idp": a current ID token) and that the identity provider and the authorization server accept them`}
		}
		return []string{`check the "oauth" client of the server's config entry (clientId, and clientSecret or privateKey) and that its authorization server accepts it`}
	}
	login := "mcpx login " + serverWord(e.Server)
	if e.Status == 403 && e.Scope != "" {
		// The refused token's scopes too: a step-up keeps them (SEP-2350).
		for _, s := range e.LoginScopes() {
			login += " --scope " + serverWord(s)
		}
		return []string{"log in again with the scopes it requires: " + login}
	}
	return []string{"log in with: " + login,
		"or pass credentials with -H 'Authorization: Bearer TOKEN', or set \"headers\" in the server's config entry"}
}

// serverWord quotes a word a server chose (its name as a URL, a scope) for
// a command line that a hint asks the user to paste: anything but plain
// characters is single-quoted, so it can never expand ($VAR, ${VAR},
// $(...), `...`) in the user's shell.
func serverWord(s string) string { return text.QuoteWord(s, "-_./:=@%+,") }

// untrustedNote says why the project files of dir were not read.
func untrustedNote(dir string, skipped []string, userConfig string) string {
	return fmt.Sprintf("skipping %s: %s is not a trusted project (%s)", strings.Join(skipped, ", "), dir, trustHint(userConfig))
}

// trustHint says how to trust a project.
func trustHint(userConfig string) string {
	return fmt.Sprintf("pass --project, or add it to \"trustedProjects\" in %s", userConfig)
}

// unusableTokenNote says that a server's stored token cannot be used.
func unusableTokenNote(server string, err error) string {
	return fmt.Sprintf("server %q: %v; run: mcpx login %s", server, err, serverWord(server))
}

// stderrLines are the last lines a server wrote on stderr that explain f.
func stderrLines(f fail.Failure) []string {
	switch e := f.(type) {
	case *fail.ConnectError:
		return e.Stderr
	case *fail.TimeoutError:
		return e.Stderr
	}
	return nil
}

// urlElicitationRequired is the error a server answers when the user must
// first visit a URL (URL-mode elicitation, MCP 2025-11-25).
const urlElicitationRequired = -32042

// urlElicitations returns a hint for each URL a -32042 error asks the user
// to visit (mcpx opens none itself).
func urlElicitations(rpc fail.RPCError) []string {
	if rpc.Code != urlElicitationRequired || len(rpc.Data) == 0 {
		return nil
	}
	var hints []string
	gjson.GetBytes(rpc.Data, "elicitations").ForEach(func(_, e gjson.Result) bool {
		// A URL is shown whole or not at all: one cut short is of no use,
		// and could show part of a secret that masking would not find.
		if u := text.Squash(e.Get("url").String()); u != "" && len(u) <= 2000 && len(hints) < 5 {
			hints = append(hints, "open this URL, then run the command again: "+u)
		}
		return true
	})
	return hints
}
