package schema

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Canon is a canonical text of a JSON value, equal for equal values:
// object keys sorted (of repeated keys the last value), numbers by value
// ("1.0", "1" and "10e-1" alike), strings decoded and re-encoded.
func Canon(v json.RawMessage) (string, bool) {
	x, err := DecodeTree(v)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	writeCanon(&b, x)
	return b.String(), true
}

// CanonTree is Canon of a decoded tree (see DecodeTree).
func CanonTree(v any) string {
	var b strings.Builder
	writeCanon(&b, v)
	return b.String()
}

func writeCanon(b *strings.Builder, x any) {
	switch x := x.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(canonNumber(string(x)))
	case string:
		b.Write(Quote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(Quote(k))
			b.WriteByte(':')
			writeCanon(b, x[k])
		}
		b.WriteByte('}')
	}
}

// canonNumber writes a JSON number as sign, significant digits and
// exponent, without converting it (a schema's 1e400 stays exact): "-0" and
// "0.0" are "0", "1.50" is "15e-1", "100" is "1e2".
func canonNumber(n string) string {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	mant, expText, _ := strings.Cut(strings.ToLower(n), "e")
	exp := 0
	if expText != "" {
		e, err := strconv.Atoi(expText)
		if err != nil {
			return "n" + n // an exponent past int: compare the text
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0"
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(exp)
}

// Quote encodes s as a JSON string, without HTML escaping.
func Quote(s string) []byte {
	if plainASCII(s) {
		b := make([]byte, 0, len(s)+2)
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// plainASCII reports whether s is printable ASCII with no quote or
// backslash: JSON-encoded, it is itself between quotes.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
