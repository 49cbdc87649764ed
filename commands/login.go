package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client/auth"
	"github.com/mcpx-cli/mcpx/internal/config"
	"github.com/mcpx-cli/mcpx/internal/fail"
)

// loginTimeout is login's own bound when --timeout is not given: the user
// has to find the browser tab and log in.
const loginTimeout = 5 * time.Minute

// loginOptions are login's arguments and flags; validate checks them.
type loginOptions struct {
	Args      []string // SRV
	Scopes    []string
	NoBrowser bool
	Paste     bool

	Server string
}

func (o *loginOptions) validate() error {
	if len(o.Args) != 1 {
		return usagef("login takes one argument: SRV")
	}
	o.Server = o.Args[0]
	return nil
}

func (a *app) newLoginCmd() *cli.Command {
	o := &loginOptions{}
	return &cli.Command{
		Name:      "login",
		Usage:     "log in to an http or sse server with OAuth and store its token",
		ArgsUsage: "SRV",
		Description: "Runs the OAuth 2.1 authorization-code flow with PKCE for SRV: discovers the server's " +
			"authorization server, registers mcpx with it (or uses the \"oauth\" client of the server's config " +
			"entry), prints the authorization URL on stderr and opens it in a browser when stderr is a terminal, " +
			"receives the answer on a loopback port, and stores the tokens. Other commands then use the token, " +
			"refreshing it when it expires.\n\n" +
			"With --paste (a browser on another machine, e.g. over SSH), nothing listens: open the URL anywhere, " +
			"log in, and paste the URL the browser ends on (http://127.0.0.1:PORT/callback?code=...&state=..., a page " +
			"that fails to load there) or just the code on stdin; the state of a pasted URL is checked.\n\n" +
			"A server whose \"oauth\" entry has \"grant\": \"client_credentials\" needs no login: every command " +
			"obtains its token; login obtains and stores one too.\n\n" +
			"EXIT STATUS: 0 logged in, 2 usage or a stdio server, 3 the server or the authorization server cannot " +
			"be reached, 4 unknown server, 6 the flow failed or was refused, 7 timeout (5 minutes unless --timeout).",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "scope", Usage: "ask for `SCOPE` (repeatable; else the config's \"scopes\", the server's 401, its metadata)", Destination: &o.Scopes},
			&cli.BoolFlag{Name: "no-browser", Usage: "print the authorization URL, never open a browser", Destination: &o.NoBrowser},
			&cli.BoolFlag{Name: "paste", Usage: "for a browser on another machine: print the URL, then read the URL the browser ends on (or the code) from stdin", Destination: &o.Paste},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			return a.login(ctx, o)
		},
	}
}

func (a *app) login(ctx context.Context, o *loginOptions) error {
	t, err := a.target(o.Server)
	if err != nil {
		return err
	}
	if t.Transport == config.Stdio {
		return usagef("server %q is a stdio server: login is for http and sse servers", t.Name)
	}
	bound := loginTimeout
	if a.g.timeoutSet {
		bound = a.g.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var paste io.Reader
	if o.Paste {
		paste = a.s.In
	}
	tok, err := auth.Login(ctx, t, auth.LoginOptions{
		Paste:           paste,
		Scopes:          o.Scopes,
		ProtocolVersion: a.g.protocolVersion,
		ClientVersion:   version(),
		Secrets:         a.s.Secrets(),
		Note:            a.log.Note,
		Open:            a.loginOpener(t.Name, o, bound),
	})
	if errors.Is(err, context.DeadlineExceeded) {
		return &fail.TimeoutError{Server: t.Name, Phase: "login", Timeout: bound}
	}
	if err != nil {
		return err
	}
	return a.loginReport(t, tok)
}

// loginOpener shows the authorization URL (and opens a browser on it
// when mcpx may), saying how long login waits.
func (a *app) loginOpener(name string, o *loginOptions, bound time.Duration) func(string) {
	return func(u string) {
		a.log.URL(fmt.Sprintf("open this URL in a browser to log in to %q", name), u)
		if o.Paste {
			a.log.Note("then paste here the URL the browser ends on (http://127.0.0.1:PORT/callback?code=..., a page that fails to load), or the code; waiting up to %s", bound)
			return
		}
		if a.s.ErrTTY && !o.NoBrowser {
			if err := openBrowser(u, a.getenv); err != nil {
				a.log.Note("could not open a browser (%v); open the URL above yourself", err)
			}
		}
		a.log.Note("waiting up to %s for the authorization (Ctrl-C to give up)", bound)
	}
}

// loginReport says what login obtained: the token's scope, expiry and
// whether it refreshes (--json: one object).
func (a *app) loginReport(t *config.Target, tok *auth.StoredToken) error {
	if a.asJSON() {
		var scope, expires any
		if tok.Scope != "" {
			scope = tok.Scope
		}
		if tok.ExpiresAt != nil {
			expires = tok.ExpiresAt.Format(time.RFC3339)
		}
		return a.writeDoc(map[string]any{"server": t.Name, "url": tok.Server, "scope": scope,
			"expires_at": expires, "refreshable": tok.RefreshToken != ""})
	}
	var facts []string
	if tok.Scope != "" {
		facts = append(facts, "scope "+tok.Scope) // RFC 6749 characters only (checked)
	}
	if tok.ExpiresAt != nil {
		facts = append(facts, "the token expires "+tok.ExpiresAt.Format(time.RFC3339))
	}
	if tok.RefreshToken != "" {
		facts = append(facts, "refreshable")
	}
	msg := fmt.Sprintf("logged in to %q", t.Name)
	if t.OAuth != nil && t.OAuth.Grant != "" && t.OAuth.Grant != config.GrantCode {
		msg = fmt.Sprintf("obtained a token for %q with the %s grant; other commands obtain and renew it themselves, so login is not needed", t.Name, t.OAuth.Grant)
	}
	if len(facts) > 0 {
		msg += " (" + strings.Join(facts, "; ") + ")"
	}
	a.log.Note("%s", msg)
	return nil
}

// openBrowser starts the user's browser on u without waiting for it (see
// browserArgv).
func openBrowser(u string, getenv func(string) string) error {
	argv := browserArgv(runtime.GOOS, u, getenv("BROWSER"))
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// browserArgv is the command that opens u: $BROWSER (the first of its
// commands, separated by ':', or ';' on Windows where ':' is in paths; %s
// replaced by the URL or the URL appended), else open on macOS, the URL
// protocol handler on Windows (never cmd.exe's start, which would read
// '&' in the URL as a command separator), xdg-open elsewhere.
func browserArgv(goos, u, browser string) []string {
	sep := ":"
	if goos == "windows" {
		sep = ";"
	}
	if b := strings.TrimSpace(strings.Split(browser, sep)[0]); b != "" {
		argv := strings.Fields(b)
		replaced := false
		for i, f := range argv {
			if strings.Contains(f, "%s") {
				argv[i], replaced = strings.ReplaceAll(f, "%s", u), true
			}
		}
		if !replaced {
			argv = append(argv, u)
		}
		return argv
	}
	switch goos {
	case "darwin":
		return []string{"open", u}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", u}
	}
	return []string{"xdg-open", u}
}

// logoutOptions are logout's arguments; validate checks them.
type logoutOptions struct {
	Args []string // SRV

	Server string
}

func (o *logoutOptions) validate() error {
	if len(o.Args) != 1 {
		return usagef("logout takes one argument: SRV")
	}
	o.Server = o.Args[0]
	return nil
}

func (a *app) newLogoutCmd() *cli.Command {
	o := &logoutOptions{}
	return &cli.Command{
		Name:      "logout",
		Usage:     "remove a server's stored OAuth token, revoking it where the server allows",
		ArgsUsage: "SRV",
		Description: "Revokes SRV's stored refresh and access tokens where its authorization server offers " +
			"revocation (RFC 7009), then removes them. A failed revocation is a warning; the tokens are removed " +
			"all the same. Logging out of a server without a stored token is not an error.\n\n" +
			"EXIT STATUS: 0 logged out (or nothing stored), 2 usage or a stdio server, 4 unknown server, " +
			"6 the token store cannot be changed, 7 timeout.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o.Args = cmd.Args().Slice()
			if err := o.validate(); err != nil {
				return err
			}
			return a.logout(ctx, o)
		},
	}
}

func (a *app) logout(ctx context.Context, o *logoutOptions) error {
	t, err := a.target(o.Server)
	if err != nil {
		return err
	}
	if t.Transport == config.Stdio {
		return usagef("server %q is a stdio server: logout is for http and sse servers", t.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	r, err := auth.Logout(ctx, t, a.s.Secrets())
	if errors.Is(err, context.DeadlineExceeded) {
		return &fail.TimeoutError{Server: t.Name, Phase: "logout", Timeout: t.Timeout}
	}
	if err != nil {
		return err
	}
	for _, w := range r.Warns {
		a.log.Warnf("server %q: %s", t.Name, w)
	}
	if a.asJSON() {
		revoked := r.Revoked
		if revoked == nil {
			revoked = []string{}
		}
		return a.writeDoc(map[string]any{"server": t.Name, "removed": r.Removed, "revoked": revoked})
	}
	switch {
	case !r.Removed:
		a.log.Note("no stored token for %q", t.Name)
	case len(r.Revoked) == 1:
		a.log.Note("logged out of %q (revoked the %s token)", t.Name, r.Revoked[0])
	case len(r.Revoked) > 1:
		a.log.Note("logged out of %q (revoked the %s tokens)", t.Name, strings.Join(r.Revoked, " and "))
	default:
		a.log.Note("logged out of %q", t.Name)
	}
	return nil
}
