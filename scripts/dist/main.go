// Command dist builds the release archives of mcpx: for each platform a
// stripped, static binary with the man page, the completion scripts, the
// README and the licence, in a .tar.gz (a .zip for Windows), and a
// SHA256SUMS file. Two runs on the same commit give byte-identical files:
// the builds are -trimpath with an empty build id, and the archives have
// sorted entries, uid/gid 0, no user names, and every time set to
// SOURCE_DATE_EPOCH (by default the commit's date).
//
//	go run ./scripts/dist -version v1.2.3 -out dist linux/amd64 windows/arm64 ...
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// file is one entry of an archive.
type file struct {
	name string // path inside the archive, below its top directory
	mode int64
	data []byte
}

// extras are the files every archive holds besides the binary: the path
// in the repository and the name in the archive.
var extras = [][2]string{
	{"README.md", "README.md"},
	{"LICENSE", "LICENSE"},
	{"man/mcpx.1", "man/mcpx.1"},
	{"completions/mcpx.bash", "completions/mcpx.bash"},
	{"completions/_mcpx", "completions/_mcpx"},
	{"completions/mcpx.fish", "completions/mcpx.fish"},
	{"completions/mcpx.ps1", "completions/mcpx.ps1"},
}

func main() {
	version := flag.String("version", "dev", "the version stamped into the binaries and the archive names")
	out := flag.String("out", "dist", "the directory to write the archives to")
	flag.StringVar(&tags, "tags", "", "the build tags (comma-separated), as make build gives them")
	flag.Parse()
	if err := run(*version, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(version, out string, platforms []string) error {
	if len(platforms) == 0 {
		return fmt.Errorf("no platform given (GOOS/GOARCH ...)")
	}
	mtime, err := sourceDate()
	if err != nil {
		return err
	}
	var common []file
	for _, e := range extras {
		data, err := os.ReadFile(e[0])
		if os.IsNotExist(err) && e[0] == "completions/mcpx.ps1" {
			continue
		}
		if err != nil {
			return err
		}
		common = append(common, file{name: e[1], mode: 0o644, data: data})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	sums := map[string][]byte{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("bad platform %q (want GOOS/GOARCH)", p)
		}
		bin, err := build(version, goos, goarch)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		exe := "mcpx"
		if goos == "windows" {
			exe += ".exe"
		}
		files := append([]file{{name: exe, mode: 0o755, data: bin}}, common...)
		base := fmt.Sprintf("mcpx-%s-%s-%s", version, goos, goarch)
		name := base + ".tar.gz"
		write := writeTarGz
		if goos == "windows" {
			name, write = base+".zip", writeZip
		}
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		err = write(io.MultiWriter(f, h), base, files, mtime)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		sums[name] = h.Sum(nil)
		fmt.Println(filepath.Join(out, name))
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), sumsFile(sums), 0o644)
}

// sourceDate is SOURCE_DATE_EPOCH, else the date of the commit checked out.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		b, err := exec.Command("git", "log", "-1", "--format=%ct").Output()
		if err != nil {
			return time.Time{}, fmt.Errorf("no SOURCE_DATE_EPOCH and no git commit date: %v", err)
		}
		s = strings.TrimSpace(string(b))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad SOURCE_DATE_EPOCH %q", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// tags are the build tags of every binary (-tags).
var tags string

// build compiles cmd/mcpx for a platform, reproducibly, and returns it.
func build(version, goos, goarch string) ([]byte, error) {
	tmp, err := os.CreateTemp("", "mcpx-dist-*")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", "build", "-tags="+tags, "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X github.com/mcpx-cli/mcpx/commands.Version="+version,
		"-o", tmp.Name(), "./cmd/mcpx")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	return os.ReadFile(tmp.Name())
}

func sorted(files []file) []file {
	s := append([]file(nil), files...)
	sort.Slice(s, func(i, j int) bool { return s[i].name < s[j].name })
	return s
}

// writeTarGz writes files under dir/ as a gzip'd ustar archive: sorted,
// owned by 0:0 with no names, every time mtime, and a gzip header with no
// name or time.
func writeTarGz(w io.Writer, dir string, files []file, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, f := range sorted(files) {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg, Name: dir + "/" + f.name, Mode: f.mode, Size: int64(len(f.data)),
			ModTime: mtime, Format: tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes files under dir/ as a zip archive: sorted, deflated,
// every time mtime.
func writeZip(w io.Writer, dir string, files []file, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range sorted(files) {
		hdr := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// sumsFile is SHA256SUMS in the format sha256sum -c reads, sorted by name.
func sumsFile(sums map[string][]byte) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sums[n]), n)
	}
	return []byte(b.String())
}
