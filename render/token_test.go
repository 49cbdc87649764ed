package render

import (
	"math/rand"
	"regexp"
	"testing"
)

// The token checks are plain loops (a regexp compiled at init cost every
// mcpx start); they must accept exactly what these regexps accept.
func TestTokensMatchTheirRegexps(t *testing.T) {
	checks := []struct {
		name string
		re   *regexp.Regexp
		f    func(string) bool
	}{
		{"mimeToken", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}$`), mimeToken},
		{"typeToken", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$`), typeToken},
		{"plainRole", regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`), plainRole},
	}
	fixed := []string{"", "a", "0", "-", "_a", "a/b", "text/plain", "image/svg+xml", "a//b", "/b", "a/", "a/b/c",
		"a\n", "é", "user", "assistant", "9role", "a-b_c", "a.b", "x\x00", " a", "a "}
	alphabet := "aZ09/!#$&^_.+- \n\x00é;:]["
	r := rand.New(rand.NewSource(1))
	for _, c := range checks {
		inputs := append([]string{}, fixed...)
		for _, n := range []int{31, 32, 33, 39, 40, 41, 63, 64, 65, 129, 130} {
			long := make([]byte, n)
			for i := range long {
				long[i] = 'a'
			}
			inputs = append(inputs, string(long), string(long[:n/2])+"/"+string(long[n/2:]))
		}
		for i := 0; i < 20000; i++ {
			b := make([]rune, r.Intn(12))
			for j := range b {
				b[j] = []rune(alphabet)[r.Intn(len([]rune(alphabet)))]
			}
			inputs = append(inputs, string(b))
		}
		for _, in := range inputs {
			if got, want := c.f(in), c.re.MatchString(in); got != want {
				t.Errorf("%s(%q) = %v, the regexp says %v", c.name, in, got, want)
			}
		}
	}
}
