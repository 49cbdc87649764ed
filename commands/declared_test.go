package commands

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpx-cli/mcpx/client"
)

func strp(s string) *string { return &s }

func TestPromptArgs(t *testing.T) {
	declared := []client.PromptArgument{
		{Name: "topic", Description: strp("what to write about"), Required: true},
		{Name: "style", Description: strp("tone\nof voice")},
		{Name: "length", Required: true},
	}
	for _, tc := range []struct {
		name     string
		args     []string
		declared []client.PromptArgument
		values   map[string]string
		missing  []string
	}{
		{"all given", []string{"length=short", "topic=go"}, declared,
			map[string]string{"topic": "go", "length": "short"}, nil},
		{"optional too", []string{"topic=go", "style=dry", "length=1"}, declared,
			map[string]string{"topic": "go", "style": "dry", "length": "1"}, nil},
		{"missing in declared order", []string{"style=dry"}, declared,
			map[string]string{"style": "dry"}, []string{"topic", "length"}},
		{"nothing given", nil, declared, map[string]string{}, []string{"topic", "length"}},
		{"empty value counts", []string{"topic=", "length="}, declared,
			map[string]string{"topic": "", "length": ""}, nil},
		{"values verbatim", []string{"topic=<a&b> = c\n", "length=@@x"}, declared,
			map[string]string{"topic": "<a&b> = c\n", "length": "@x"}, nil},
		{"no declared arguments", nil, nil, map[string]string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, false, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			values, missing, err := promptArgs("p", pairs, tc.declared)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(values, tc.values) {
				t.Errorf("values %#v, want %#v", values, tc.values)
			}
			var names []string
			for _, m := range missing {
				names = append(names, m.Name)
			}
			if !reflect.DeepEqual(names, tc.missing) {
				t.Errorf("missing %v, want %v", names, tc.missing)
			}
		})
	}
}

func TestPromptArgsUnknown(t *testing.T) {
	declared := []client.PromptArgument{{Name: "topic", Required: true}, {Name: "style"}}
	for _, tc := range []struct {
		name     string
		args     []string
		declared []client.PromptArgument
		msg      string
		details  map[string]any
		hints    []string
	}{
		{"one unknown", []string{"topic=x", "tpoic=y"}, declared,
			`prompt "p" has no argument "tpoic"; it declares: topic, style`,
			map[string]any{"declared": []string{"topic", "style"}, "unknown": []string{"tpoic"}},
			[]string{`did you mean "topic" instead of "tpoic"?`}},
		{"several unknown", []string{"Style=x", "zzz=y", "topic:=1"}, declared,
			`prompt "p" has no arguments "Style", "zzz", "topic:"; it declares: topic, style`,
			map[string]any{"declared": []string{"topic", "style"}, "unknown": []string{"Style", "zzz", "topic:"}, "missing": []string{"topic"}},
			[]string{`did you mean "style" instead of "Style"?`, `did you mean "topic" instead of "topic:"?`, "also missing: topic"}},
		{"takes none", []string{"x=1"}, nil,
			`prompt "p" takes no arguments, got "x"`,
			map[string]any{"declared": []string{}, "unknown": []string{"x"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, err := parsePairs(tc.args, false, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = promptArgs("p", pairs, tc.declared)
			u := usageOf(t, err)
			if u.Message != tc.msg {
				t.Errorf("message\n got %s\nwant %s", u.Message, tc.msg)
			}
			if !reflect.DeepEqual(u.Details, tc.details) {
				t.Errorf("details %#v, want %#v", u.Details, tc.details)
			}
			if !reflect.DeepEqual(u.Hints, tc.hints) {
				t.Errorf("hints %q, want %q", u.Hints, tc.hints)
			}
		})
	}
}

func TestMissingPromptArgs(t *testing.T) {
	for _, tc := range []struct {
		missing []client.PromptArgument
		msg     string
		names   []string
		hint    string
	}{
		{[]client.PromptArgument{{Name: "topic", Description: strp("what to\n write   about"), Required: true}, {Name: "length", Required: true}, {Name: "x", Description: strp("  ")}},
			`prompt "p" is missing required arguments: topic (what to write about), length, x`,
			[]string{"topic", "length", "x"}, "add topic=VALUE length=VALUE x=VALUE"},
		{[]client.PromptArgument{{Name: "topic", Description: strp(strings.Repeat("d", 100))}},
			`prompt "p" is missing required argument: topic (` + strings.Repeat("d", 79) + `…)`,
			[]string{"topic"}, "add topic=VALUE"},
	} {
		u := usageOf(t, missingPromptArgs("p", tc.missing, nil))
		if u.Message != tc.msg {
			t.Errorf("message\n got %s\nwant %s", u.Message, tc.msg)
		}
		if !reflect.DeepEqual(u.Details, map[string]any{"missing": tc.names}) {
			t.Errorf("details %#v", u.Details)
		}
		if !reflect.DeepEqual(u.Hints, []string{tc.hint}) {
			t.Errorf("hints %q, want %q", u.Hints, tc.hint)
		}
	}
}

func TestArgsNearestSpellings(t *testing.T) {
	names := []string{"get-sum", "print_long_env_name"}
	for in, want := range map[string]string{
		"get_sum": "get-sum", "GET_SUM": "get-sum", "print-long-env-name": "print_long_env_name", "Print-Long-Env-Name": "print_long_env_name",
	} {
		if got := argNearest(in, names); got != want {
			t.Errorf("argNearest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"head", "haed", 1}, {"", "abc", 3}, {"abc", "", 3}, {"ca", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"héad", "haéd", 1}, {"hxad", "haéd", 2}, {"x", "x", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func TestArgsNearest(t *testing.T) {
	names := []string{"path", "limit", "Mode"}
	for in, want := range map[string]string{
		"pth": "path", "PATH": "path", "mode": "Mode", "limt": "limit", "lim": "limit", "li": "", "x": "", "": "", "zzzz": "",
		"ptah": "path", "limti": "limit",
	} {
		if got := argNearest(in, names); got != want {
			t.Errorf("argNearest(%q) = %q, want %q", in, got, want)
		}
	}
}
