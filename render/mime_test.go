package render

import (
	"regexp"
	"testing"
)

var safeExtPattern = regexp.MustCompile(`^[a-z0-9]{1,8}$`)

func TestExtension(t *testing.T) {
	for _, tc := range []struct{ mime, want string }{
		{"image/png", "png"},
		{"image/jpeg", "jpg"},
		{"image/svg+xml", "svg"},
		{"image/gif", "gif"},
		{"image/webp", "webp"},
		{"audio/mpeg", "mp3"},
		{"audio/wav", "wav"},
		{"audio/x-wav", "wav"},
		{"audio/ogg", "ogg"},
		{"video/mp4", "mp4"},
		{"application/pdf", "pdf"},
		{"application/zip", "zip"},
		{"application/gzip", "gz"},
		{"application/x-tar", "tar"},
		{"application/json", "json"},
		{"application/xml", "xml"},
		{"application/octet-stream", "bin"},
		{"application/wasm", "wasm"},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
		{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"},
		{"application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"},
		{"text/plain", "txt"},
		{"text/html", "html"},
		{"text/csv", "csv"},
		{"text/markdown", "md"},

		// normalisation
		{"text/plain; charset=utf-8", "txt"},
		{"IMAGE/PNG", "png"},
		{"  Image/Jpeg ; q=1", "jpg"},
		{"\timage/png\t", "png"},
		{"audio/mpeg;", "mp3"},

		// anything else
		{"", "bin"},
		{";", "bin"},
		{"image/x-unknown", "bin"},
		{"application/x-sh", "bin"},
		{"image/png/../../etc", "bin"},
		{"png", "bin"},
		{"image/png\x00", "bin"},
		{"ımage/png", "bin"},      // dotless i is not ASCII
		{"\u0130mage/png", "bin"}, // İ lowercases to i in Unicode, not in ASCII
		{"image/pn\u212a", "bin"}, // KELVIN SIGN
		{"image/ png", "bin"},
	} {
		if got := extension(tc.mime); got != tc.want {
			t.Errorf("Extension(%q) = %q, want %q", tc.mime, got, tc.want)
		}
	}
}

// TestExtensionTable checks every entry of the table: a lowercase key
// without parameters or spaces, a safe extension, and found by extension.
func TestExtensionTable(t *testing.T) {
	if len(mimeExtensions) < 40 {
		t.Errorf("the table has %d entries", len(mimeExtensions))
	}
	key := regexp.MustCompile(`^[a-z]+/[a-z0-9.+-]+$`)
	for mime, ext := range mimeExtensions {
		if !safeExtPattern.MatchString(ext) {
			t.Errorf("%q → %q does not match %s", mime, ext, safeExtPattern)
		}
		if !key.MatchString(mime) {
			t.Errorf("table key %q is not a lowercase type/subtype", mime)
		}
		if got := extension(mime); got != ext {
			t.Errorf("Extension(%q) = %q, want the table's %q", mime, got, ext)
		}
	}
}

func TestSafeExtension(t *testing.T) {
	for ext, want := range map[string]bool{
		"": false, "a": true, "mp3": true, "abcdefgh": true, "abcdefghi": false,
		"Png": false, "p.g": false, "p/g": false, "..": false, "p g": false, "é": false,
	} {
		if got := safeExtension(ext); got != want {
			t.Errorf("safeExtension(%q) = %v, want %v", ext, got, want)
		}
	}
}
