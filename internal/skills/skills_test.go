package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

const skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func entry(t *testing.T, frontmatter string, files ...string) *Entry {
	t.Helper()
	res := ""
	for i, f := range files {
		if i > 0 {
			res += ","
		}
		res += f
	}
	raw := fmt.Sprintf(`{"uri":"skill://pdf-processing/SKILL.md","frontmatter":%s,"resources":[%s]}`, frontmatter, res)
	e, err := ParseEntry([]byte(raw))
	if err != nil {
		t.Fatalf("ParseEntry(%s): %v", raw, err)
	}
	return e
}

func file(uri, body string) string {
	return fmt.Sprintf(`{"uri":%q,"digest":%q,"size":%d}`, uri, digest(body), len(body))
}

const fm = `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents"}`

func TestParseEntry(t *testing.T) {
	e := entry(t, fm, file("skill://pdf-processing/references/FORMS.md", "forms"), file("skill://pdf-processing/SKILL.md", skillMD))
	if e.Name != "pdf-processing" || e.Description != "Extract, fill, and assemble PDF documents" {
		t.Errorf("name, description = %q, %q", e.Name, e.Description)
	}
	if len(e.Files) != 2 || e.Files[0].URI != e.URI || !e.Files[0].Sized || e.Files[0].Size != int64(len(skillMD)) {
		t.Errorf("files = %+v, want SKILL.md first with its size", e.Files)
	}
	for _, bad := range []string{
		`[]`,
		`{"frontmatter":{"name":"x"},"resources":[]}`,
		`{"uri":"skill://x/SKILL.md","resources":[]}`,
		`{"uri":"skill://x/SKILL.md","frontmatter":{"description":"d"},"resources":[]}`,
		`{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x"},"resources":[]}`,
		`{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x"},"resources":[{"uri":"skill://x/SKILL.md","size":-1}]}`,
		`{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x"},"resources":[{"uri":"skill://x/SKILL.md"},{"uri":"skill://x/SKILL.md"}]}`,
	} {
		if _, err := ParseEntry([]byte(bad)); err == nil {
			t.Errorf("ParseEntry(%s) = nil error, want one", bad)
		}
	}
}

func TestVerify(t *testing.T) {
	f := File{URI: "skill://x/SKILL.md", Digest: digest(skillMD), Size: int64(len(skillMD)), Sized: true}
	if err := f.Verify([]byte(skillMD)); err != nil {
		t.Errorf("Verify(the file) = %v", err)
	}
	for _, c := range []struct {
		f     File
		body  string
		check string
	}{
		{f, skillMD + "extra", "size"},
		{f, "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documentz\n---\n\nSkill body.\n", "digest"},
		{File{URI: f.URI, Digest: digest(skillMD)}, "Evil body!!", "digest"},
		{File{URI: f.URI}, skillMD, "digest"},
		{File{URI: f.URI, Digest: "md5:abc"}, skillMD, "digest"},
		{File{URI: f.URI, Digest: "sha256:" + hex.EncodeToString(make([]byte, 31))}, skillMD, "digest"},
	} {
		err := c.f.Verify([]byte(c.body))
		if e, ok := Problem(err); !ok || e.Details["check"] != c.check {
			t.Errorf("Verify(%q) with %+v = %v, want a %s error", c.body, c.f, err, c.check)
		}
	}
}

func TestCheckFrontmatter(t *testing.T) {
	e := entry(t, fm, file("skill://pdf-processing/SKILL.md", skillMD))
	if err := e.CheckFrontmatter([]byte(skillMD)); err != nil {
		t.Errorf("CheckFrontmatter(SKILL.md) = %v", err)
	}
	crlf := "---\r\nname: pdf-processing\r\ndescription: \"Extract, fill, and assemble PDF documents\"\r\n---\r\nbody"
	if err := e.CheckFrontmatter([]byte(crlf)); err != nil {
		t.Errorf("CheckFrontmatter(CRLF, quoted) = %v", err)
	}
	for body, want := range map[string]string{
		"---\nname: pdf-processing\ndescription: Exfiltrate credentials\n---\n":                                         `server "": skill "": file "skill://pdf-processing/SKILL.md": its frontmatter's "description" is "Exfiltrate credentials", the listing's is "Extract, fill, and assemble PDF documents"; nothing was written`,
		"---\nname: pdf-processing\n---\n":                                                                              `server "": skill "": file "skill://pdf-processing/SKILL.md": its frontmatter has no "description", the listing's has "Extract, fill, and assemble PDF documents"; nothing was written`,
		"---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nallowed-tools: Bash\n---\n": `server "": skill "": file "skill://pdf-processing/SKILL.md": its frontmatter has "allowed-tools", which the listing's does not; nothing was written`,
		"Skill body.\n":               `server "": skill "": file "skill://pdf-processing/SKILL.md": it has no YAML frontmatter (a first line ---, the fields, a line ---); nothing was written`,
		"---\nname: pdf-processing\n": `server "": skill "": file "skill://pdf-processing/SKILL.md": it has no YAML frontmatter (a first line ---, the fields, a line ---); nothing was written`,
		"---\nname: [unclosed\n---\n": "",
	} {
		err := e.CheckFrontmatter([]byte(body))
		if err == nil || (want != "" && err.Error() != want) {
			t.Errorf("CheckFrontmatter(%q) = %v\nwant %s", body, err, want)
		}
	}
	num := entry(t, `{"name":"n","version":2,"tags":["a","b"]}`, file("skill://pdf-processing/SKILL.md", ""))
	if err := num.CheckFrontmatter([]byte("---\nname: n\nversion: 2\ntags: [a, b]\n---\n")); err != nil {
		t.Errorf("numbers and lists: %v", err)
	}
}

func TestPath(t *testing.T) {
	e := entry(t, fm, file("skill://pdf-processing/SKILL.md", skillMD))
	for uri, want := range map[string]string{
		"skill://pdf-processing/SKILL.md":            "SKILL.md",
		"skill://pdf-processing/references/FORMS.md": "references/FORMS.md",
	} {
		if got, err := e.Path(uri); err != nil || got != want {
			t.Errorf("Path(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, uri := range []string{
		"skill://other/SKILL.md",
		"skill://pdf-processing/../other/SKILL.md",
		"skill://pdf-processing/./x",
		"skill://pdf-processing//etc/passwd",
		"skill://pdf-processing/",
		"skill://pdf-processing/a\\..\\..\\x",
		"skill://pdf-processing/%2e%2e/x",
		"skill://pdf-processing/C:/x",
		"skill://pdf-processing/a\nb",
		"file:///etc/passwd",
	} {
		if got, err := e.Path(uri); err == nil {
			t.Errorf("Path(%q) = %q, want an error", uri, got)
		}
	}
	for _, uri := range []string{"skill://SKILL.md", "skill:///SKILL.md", "SKILL.md", "skill://x/skill.md"} {
		bad := &Entry{URI: uri}
		if _, err := bad.Root(); err == nil {
			t.Errorf("Root of %q: no error", uri)
		}
	}
}
