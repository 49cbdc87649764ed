package render

import "strings"

// mimeExtensions is the fixed mime → extension table of spilled files (see
// CONTENT POLICY in mcpx(1)). Keys are lowercase, without parameters. Every
// value must be a safe file extension (see safeExtension); a test checks each
// one.
var mimeExtensions = map[string]string{
	// images (spilled always, SVG included)
	"image/png":                "png",
	"image/jpeg":               "jpg",
	"image/jpg":                "jpg",
	"image/pjpeg":              "jpg",
	"image/gif":                "gif",
	"image/webp":               "webp",
	"image/svg+xml":            "svg",
	"image/bmp":                "bmp",
	"image/tiff":               "tiff",
	"image/x-icon":             "ico",
	"image/vnd.microsoft.icon": "ico",
	"image/avif":               "avif",
	"image/heic":               "heic",
	"image/heif":               "heif",

	// audio
	"audio/mpeg":   "mp3",
	"audio/mp3":    "mp3",
	"audio/wav":    "wav",
	"audio/wave":   "wav",
	"audio/x-wav":  "wav",
	"audio/ogg":    "ogg",
	"audio/opus":   "opus",
	"audio/flac":   "flac",
	"audio/x-flac": "flac",
	"audio/aac":    "aac",
	"audio/mp4":    "m4a",
	"audio/webm":   "weba",
	"audio/midi":   "mid",

	// video
	"video/mp4":        "mp4",
	"video/webm":       "webm",
	"video/ogg":        "ogv",
	"video/quicktime":  "mov",
	"video/mpeg":       "mpeg",
	"video/x-msvideo":  "avi",
	"video/x-matroska": "mkv",

	// documents and archives
	"application/pdf":               "pdf",
	"application/zip":               "zip",
	"application/gzip":              "gz",
	"application/x-gzip":            "gz",
	"application/x-tar":             "tar",
	"application/x-bzip2":           "bz2",
	"application/x-xz":              "xz",
	"application/zstd":              "zst",
	"application/x-7z-compressed":   "7z",
	"application/json":              "json",
	"application/ld+json":           "jsonld",
	"application/xml":               "xml",
	"application/yaml":              "yaml",
	"application/octet-stream":      "bin",
	"application/wasm":              "wasm",
	"application/rtf":               "rtf",
	"application/msword":            "doc",
	"application/vnd.ms-excel":      "xls",
	"application/vnd.ms-powerpoint": "ppt",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "docx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "xlsx",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
	"application/vnd.oasis.opendocument.text":                                   "odt",
	"application/vnd.oasis.opendocument.spreadsheet":                            "ods",
	"application/javascript":                                                    "js",
	"application/sql":                                                           "sql",

	// fonts
	"font/woff":  "woff",
	"font/woff2": "woff2",
	"font/ttf":   "ttf",
	"font/otf":   "otf",

	// text (spilled only when not valid UTF-8 or holding a NUL byte)
	"text/plain":                "txt",
	"text/html":                 "html",
	"text/csv":                  "csv",
	"text/markdown":             "md",
	"text/xml":                  "xml",
	"text/css":                  "css",
	"text/javascript":           "js",
	"text/tab-separated-values": "tsv",
	"text/calendar":             "ics",
	"text/yaml":                 "yaml",
}

// extension returns the file extension (without dot) spilled files of a mime type get.
//
// The mime type is lowercased (ASCII letters only: mime types are ASCII
// tokens), its parameters (";...") dropped and spaces trimmed, then looked up
// in a fixed table; anything else is "bin". The extension is never derived
// from the mime string itself, so a server cannot choose a file name.
func extension(mime string) string {
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	ext, ok := mimeExtensions[mimeLower(strings.TrimSpace(mime))]
	if !ok || !safeExtension(ext) {
		return "bin"
	}
	return ext
}

// safeExtension reports whether ext matches ^[a-z0-9]{1,8}$.
func safeExtension(ext string) bool {
	if len(ext) < 1 || len(ext) > 8 {
		return false
	}
	for i := 0; i < len(ext); i++ {
		if c := ext[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// mimeLower lowercases ASCII letters only; other bytes are kept, so a
// non-ASCII mime type never folds onto a table entry.
func mimeLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + ('a' - 'A')
				}
			}
			return string(b)
		}
	}
	return s
}
