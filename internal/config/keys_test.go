package config

import "testing"

func TestNearestKey(t *testing.T) {
	for k, want := range map[string]string{
		"comand": "command", "agrs": "args", "hedaers": "headers", "typ": "type", "tpye": "type", "urls": "url",
		"keepAlve": "keepAlive", "secret": "secrets", "disable": "disabled", "timout": "timeout",
		"tool": "tools", "redOnly": "readOnly", "description": "", "enabled": "", "serverUrl": "", "x": "", "": "",
	} {
		if got := nearestKey(k, entryKeys); got != want {
			t.Errorf("nearestKey(%q) = %q, want %q", k, got, want)
		}
	}
	if got := nearMisses("f", "s", []byte(`{"Command": "x", "comand": "y", "inheritenv": true}`), entryKeys); len(got) != 1 ||
		got[0] != `config file f: server "s": unknown key "comand" is ignored; did you mean "command"?` {
		t.Errorf("nearMisses: %q", got)
	}
}
