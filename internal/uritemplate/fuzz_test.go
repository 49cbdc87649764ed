package uritemplate

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/internal/fail"
)

// FuzzExpand checks that Expand never panics, fails only with a
// *Error, and on success copies the literal parts and substitutes
// each value percent-encoded so that decoding gives the value back.
func FuzzExpand(f *testing.F) {
	for _, s := range [][3]string{
		{"x://{a}", "a", "v"},
		{"x://{a}/{b}", "b", "é世😀 /?"},
		{"{a}{a}", "a", "{}%"},
		{"x://{+a}", "a", "v"},
		{"x://{a,b}", "a", "v"},
		{"x://{a:3}", "a", "v"},
		{"x://{a", "a", "v"},
		{"x://a}", "a", "v"},
		{"x://plain", "a", "v"},
		{"x://{a%20b.c}", "a%20b.c", "\x00\xff"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, tpl, name, value string) {
		var tries []map[string]string
		tries = append(tries, nil, map[string]string{name: value})
		all := map[string]string{}
		for i, v := range Variables(tpl) {
			all[v] = value + strconv.Itoa(i)
		}
		tries = append(tries, all)
		for _, vars := range tries {
			got, err := Expand(tpl, vars)
			if err != nil {
				if te, ok := fail.As(err, fail.Usage); !ok || te.Message == "" || got != "" {
					t.Fatalf("Expand(%q, %q) = %q, %v", tpl, vars, got, err)
				}
				continue
			}
			if strings.ContainsAny(got, "{}") {
				t.Fatalf("Expand(%q, %q) = %q holds a brace", tpl, vars, got)
			}
			checkExpansion(t, tpl, vars, got)
		}
	})
}

// checkExpansion walks the template: literal text must be copied, and each
// {name} must be replaced by unreserved characters and %XX escapes that
// decode to the value.
func checkExpansion(t *testing.T, tpl string, vars map[string]string, got string) {
	rest := got
	for tpl != "" {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			i = len(tpl)
		}
		if !strings.HasPrefix(rest, tpl[:i]) {
			t.Fatalf("literal %q not copied into %q", tpl[:i], got)
		}
		rest, tpl = rest[i:], tpl[i:]
		if tpl == "" {
			break
		}
		j := strings.IndexByte(tpl, '}')
		name := tpl[1:j]
		tpl = tpl[j+1:]
		value, ok := vars[name]
		if !ok {
			t.Fatalf("expanded %q without a value for %q", got, name)
		}
		size := 0
		for k := 0; k < len(value); k++ {
			if c := value[k]; 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
				size++
			} else {
				size += 3
			}
		}
		if size > len(rest) {
			t.Fatalf("%q too short for the value %q of %q", got, value, name)
		}
		enc := rest[:size]
		rest = rest[size:]
		if !encodedValue.MatchString(enc) {
			t.Fatalf("value %q encoded as %q", value, enc)
		}
		if dec, err := url.PathUnescape(enc); err != nil || dec != value {
			t.Fatalf("%q decodes to %q, %v; want %q", enc, dec, err, value)
		}
	}
	if rest != "" {
		t.Fatalf("%q has %q left over", got, rest)
	}
}

var encodedValue = regexp.MustCompile(`^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})*$`)
