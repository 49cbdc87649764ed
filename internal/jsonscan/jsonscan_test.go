package jsonscan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestMembersJSONParseRule(t *testing.T) {
	doc := []byte(` { "a": 1, "b" : [2, {"x":"}"}], "a": "last", "c\u0041": null } `)
	at := SkipSpace(doc, 0)
	var got []string
	for _, m := range Members(doc, at) {
		got = append(got, m.Key+"="+string(doc[m.S:m.E]))
	}
	want := []string{`a="last"`, `b=[2, {"x":"}"}]`, `cA=null`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Members = %q, want %q", got, want)
	}
}

func TestMembersManyRepeated(t *testing.T) {
	// More names than Members looks up without an index.
	var b strings.Builder
	b.WriteString("{")
	for i := range 20 {
		fmt.Fprintf(&b, "%q:%d,", fmt.Sprintf("k%d", i), i)
	}
	b.WriteString(`"k1":"x","k19":"y"}`)
	doc := []byte(b.String())
	ms := Members(doc, 0)
	if len(ms) != 20 || string(doc[ms[1].S:ms[1].E]) != `"x"` || string(doc[ms[19].S:ms[19].E]) != `"y"` {
		t.Errorf("Members = %v", ms)
	}
}

func TestElements(t *testing.T) {
	doc := []byte(`[ 1, "a,b", [3,4] , {} ]`)
	var got []string
	for _, e := range Elements(doc, 0) {
		got = append(got, string(doc[e[0]:e[1]]))
	}
	if want := []string{`1`, `"a,b"`, `[3,4]`, `{}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("Elements = %q, want %q", got, want)
	}
	if Elements([]byte(`[]`), 0) != nil {
		t.Error("an empty array has elements")
	}
}

func TestSkipValue(t *testing.T) {
	for doc, end := range map[string]int{`"a\"b" x`: 6, `123,`: 3, `true}`: 4, `{"a":"]"} `: 9} {
		if got := SkipValue([]byte(doc), 0); got != end {
			t.Errorf("SkipValue(%q) = %d, want %d", doc, got, end)
		}
	}
}

func TestFind(t *testing.T) {
	doc := []byte(`{"a":1,"k\u0065y":"x","b":{"key":2},"key" : "last"}`)
	s, e, ok := Find(doc, 0, "key")
	if !ok || string(doc[s:e]) != `"last"` {
		t.Errorf("Find = %q %v", doc[s:e], ok)
	}
	if _, _, ok := Find(doc, 0, "c"); ok {
		t.Error("found a member that is not there")
	}
}

func TestWalkObjectEnds(t *testing.T) {
	doc := []byte(`{ "a" : [1, {"b": "}"}], "c": {} } ,`)
	var names []string
	end := WalkObject(doc, 0, func(ks, ke, s int) int {
		names = append(names, Key(doc, ks, ke))
		return SkipValue(doc, s)
	})
	if end != len(doc)-2 || !reflect.DeepEqual(names, []string{"a", "c"}) {
		t.Errorf("WalkObject = %d %q, want %d [a c]", end, names, len(doc)-2)
	}
	if end := WalkArray([]byte(`[ 1 , [2] ]x`), 0, func(s int) int { return SkipValue([]byte(`[ 1 , [2] ]x`), s) }); end != 11 {
		t.Errorf("WalkArray = %d, want 11", end)
	}
}

func TestName(t *testing.T) {
	doc := []byte(`"abc" "a\u0062c"`)
	names := map[string]string{}
	if Name(doc, 0, 5, names) != "abc" || Name(doc, 6, 16, names) != "abc" || len(names) != 1 {
		t.Errorf("names %v", names)
	}
	if !NameIs(doc, 6, 16, "abc") || NameIs(doc, 0, 5, "abd") {
		t.Error("NameIs")
	}
	for i := range MaxNames + 10 {
		k := []byte(fmt.Sprintf("%q", fmt.Sprint(i)))
		Name(k, 0, len(k), names)
	}
	if len(names) != MaxNames {
		t.Errorf("%d names kept, want %d", len(names), MaxNames)
	}
}
