//go:build unix

package test

// Testscript commands for the auth_*.txtar scripts (mcpx login, logout and
// stored tokens): perm checks file modes, scrub makes an output that holds
// ports, times and a PKCE challenge comparable with a golden file, and
// nosecrets checks that no token or client secret got into an output.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// perm MODE PATTERN...: every path matching each glob PATTERN (at least one
// each) has the permission bits MODE (octal, e.g. 0600).
func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: perm MODE PATTERN...")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	for _, pat := range args[1:] {
		paths, err := filepath.Glob(ts.MkAbs(pat))
		ts.Check(err)
		if len(paths) == 0 {
			ts.Fatalf("perm: nothing matches %s", pat)
		}
		for _, p := range paths {
			fi, err := os.Lstat(p)
			ts.Check(err)
			if got := uint64(fi.Mode().Perm()); got != want || fi.Mode()&os.ModeSymlink != 0 {
				ts.Fatalf("%s has mode %v, want %04o", p, fi.Mode(), want)
			}
		}
	}
}

var (
	scrubTime      = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	scrubChallenge = regexp.MustCompile(`\bcode_challenge=[A-Za-z0-9_-]+`)
	scrubState     = regexp.MustCompile(`\bstate=[^&\s"]+`)
	scrubPort      = regexp.MustCompile(`(127\.0\.0\.1|localhost)(:|%3A)([0-9]+)`)
	scrubTokenFile = regexp.MustCompile(`\b[0-9a-f]{32}\.(json|lock)\b`)
)

// scrub IN OUT: write IN (a file, or stdout or stderr: the last command's)
// to OUT with what varies from run to run replaced: the loopback ports of
// each OAuth fixture VAR become <VAR-RS> and <VAR-AS>, any other loopback
// port <PORT> (in URLs and in URL-encoded ones: 127.0.0.1%3A<PORT>); RFC
// 3339 times <TIME>; the values of code_challenge= and state= <CHALLENGE>
// and <STATE>; token store names (32 hex digits, a hash of the server URL)
// <HASH>.json and <HASH>.lock; and $WORK's value $WORK.
func cmdScrub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: scrub IN OUT")
	}
	text := ts.ReadFile(args[0])
	ports := map[string]string{}
	oauthServers.Lock()
	for name, s := range oauthServers.m[ts] {
		for _, x := range []struct{ origin, tag string }{{s.URL(), "RS"}, {s.Issuer(), "AS"}} {
			if m := scrubPort.FindStringSubmatch(x.origin); m != nil {
				ports[m[3]] = "<" + name + "-" + x.tag + ">"
			}
		}
	}
	oauthServers.Unlock()
	if w := ts.Getenv("WORK"); w != "" {
		text = strings.ReplaceAll(text, w, "$WORK")
	}
	text = scrubPort.ReplaceAllStringFunc(text, func(s string) string {
		m := scrubPort.FindStringSubmatch(s)
		tag, ok := ports[m[3]]
		if !ok {
			tag = "<PORT>"
		}
		return m[1] + m[2] + tag
	})
	text = scrubTime.ReplaceAllString(text, "<TIME>")
	text = scrubTokenFile.ReplaceAllString(text, "<HASH>.$1")
	text = scrubChallenge.ReplaceAllString(text, "code_challenge=<CHALLENGE>")
	text = scrubState.ReplaceAllString(text, "state=<STATE>")
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(text), 0o644))
}

// secretValue matches what the OAuth fixture issues and what no output may
// show: access and refresh tokens (at-N-HEX, rt-N-HEX), the secrets of
// dynamically registered clients, and those of the pre-registered ones,
// JWT client assertions and the lines of a PEM private key.
var secretValue = regexp.MustCompile(`\b(at|rt)-[0-9]+-[0-9a-f]{16}\b|dyn-secret-[0-9]+|s3cret-(basic|post|cc-basic|cc-post)|eyJ[A-Za-z0-9_-]{8,}\.eyJ|MI[GIJ][A-Za-z0-9+/]{16,}`)

// nosecrets [FILE...]: neither the last command's stdout and stderr nor any
// FILE holds a token or a client secret of the OAuth fixture.
func cmdNoSecrets(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: nosecrets [FILE...]")
	}
	for _, name := range slices.Concat([]string{"stdout", "stderr"}, args) {
		if m := secretValue.FindString(ts.ReadFile(name)); m != "" {
			ts.Fatalf("%s shows a secret: %s", name, fmt.Sprintf("%.6s...", m))
		}
	}
}
