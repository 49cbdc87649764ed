package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// In mcpx's own files (the user file, --config, ./.mcp.json) an unknown key
// is ignored, as in every host's, except a near miss of a key mcpx reads
// ("comand", "agrs", "hedaers"): that is a warning naming the file and the
// key it resembles, since the entry it was meant for then works otherwise
// than it says, or not at all (see CONFIGURATION in mcpx(1)).

// entryKeys are the keys of a server entry (rawEntry's).
var entryKeys = []string{"type", "command", "args", "env", "cwd", "url", "headers", "timeout", "keepAlive",
	"inheritEnv", "roots", "oauth", "secrets", "disabled", "tools", "readOnly"}

// fileKeys are the top-level keys of mcpx's own file (rawFile's).
var fileKeys = []string{"mcpServers", "servers", "trustedProjects", "import", "completionKeepAlive", "maxWarm", "oauth", "registry"}

// nearMisses warns about the keys of the JSON object data (a server
// entry's when server is not "") that are near misses of known.
func nearMisses(path, server string, data json.RawMessage, known []string) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if slices.ContainsFunc(known, func(n string) bool { return strings.EqualFold(n, k) }) {
			continue // known (encoding/json matches keys to fields in any case)
		}
		if near := nearestKey(k, known); near != "" {
			where := fmt.Sprintf("config file %s", path)
			if server != "" {
				where += fmt.Sprintf(": server %q", server)
			}
			out = append(out, fmt.Sprintf("%s: unknown key %q is ignored; did you mean %q?", where, k, near))
		}
	}
	return out
}

// nearestKey is the known key that k is a near miss of, or "": one edit
// away (a letter added, left out, changed, or two swapped), two for a key
// of seven letters or more.
func nearestKey(k string, known []string) string {
	if len(k) > 64 {
		return ""
	}
	best, bestD := "", 0
	for _, n := range known {
		limit := 1
		if len(n) >= 7 {
			limit = 2
		}
		d := osaDistance(strings.ToLower(k), strings.ToLower(n))
		if d <= limit && d < len(k) && (best == "" || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

// osaDistance is the optimal string alignment distance of a and b: the
// edit distance with the swap of two neighbours as one edit.
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
