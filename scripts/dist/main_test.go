package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"
)

var testFiles = []file{
	{name: "mcpx", mode: 0o755, data: []byte("binary")},
	{name: "man/mcpx.1", mode: 0o644, data: []byte(".TH MCPX 1")},
	{name: "README.md", mode: 0o644, data: []byte("# mcpx")},
}

func TestTarGzDeterministic(t *testing.T) {
	mtime := time.Unix(1700000000, 0).UTC()
	var a, b bytes.Buffer
	if err := writeTarGz(&a, "mcpx-v1-linux-amd64", testFiles, mtime); err != nil {
		t.Fatal(err)
	}
	// the same files in another order, at another moment
	time.Sleep(1100 * time.Millisecond)
	if err := writeTarGz(&b, "mcpx-v1-linux-amd64", []file{testFiles[2], testFiles[0], testFiles[1]}, mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two archives of the same files differ")
	}
	gz, err := gzip.NewReader(&a)
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header has a time or name: %v %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(mtime) || len(h.PAXRecords) != 0 {
			t.Errorf("%s: header %+v", h.Name, h)
		}
		if h.Name == "mcpx-v1-linux-amd64/mcpx" && h.Mode != 0o755 {
			t.Errorf("binary mode %o", h.Mode)
		}
	}
	want := "[mcpx-v1-linux-amd64/README.md mcpx-v1-linux-amd64/man/mcpx.1 mcpx-v1-linux-amd64/mcpx]"
	if got := fmtNames(names); got != want {
		t.Errorf("entries %s, want %s", got, want)
	}
}

func TestZipDeterministic(t *testing.T) {
	mtime := time.Unix(1700000000, 0).UTC()
	var a, b bytes.Buffer
	if err := writeZip(&a, "d", testFiles, mtime); err != nil {
		t.Fatal(err)
	}
	if err := writeZip(&b, "d", []file{testFiles[1], testFiles[2], testFiles[0]}, mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two zips of the same files differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(mtime) {
			t.Errorf("%s: modified %v", f.Name, f.Modified)
		}
	}
	if got := fmtNames(names); got != "[d/README.md d/man/mcpx.1 d/mcpx]" {
		t.Errorf("entries %s", got)
	}
}

func TestSumsFile(t *testing.T) {
	got := string(sumsFile(map[string][]byte{"b.zip": {0xab}, "a.tar.gz": {0x01, 0x02}}))
	if got != "0102  a.tar.gz\nab  b.zip\n" {
		t.Errorf("SHA256SUMS = %q", got)
	}
}

func fmtNames(n []string) string {
	var b bytes.Buffer
	b.WriteString("[")
	for i, s := range n {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(s)
	}
	b.WriteString("]")
	return b.String()
}
