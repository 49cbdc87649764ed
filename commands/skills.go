package commands

// Server-published skills (the MCP extension io.modelcontextprotocol/skills;
// see "mcpx skills" in mcpx(1)): skills lists them, skills get writes one
// as a skill directory once every file of it has been read and verified.
// The skills command holds its subcommands (get; generate writes skills of
// mcpx's own making), and lists when given a server alone.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v3"

	"github.com/mcpx-cli/mcpx/client"
	"github.com/mcpx-cli/mcpx/internal/fail"
	"github.com/mcpx-cli/mcpx/internal/skills"
	"github.com/mcpx-cli/mcpx/render"
)

const skillsExit = "EXIT STATUS: 0 (warnings allowed), 1 a server error, or a skill that fails verification (size, " +
	"digest, frontmatter, a path outside its directory) or cannot be written, 2 usage, 3 connection, 4 no such server " +
	"or skill, 5 the server does not publish skills, 6 authentication, 7 timeout, 8 a safety limit, 9 --select matched " +
	"nothing, 129/130/143 SIGHUP/SIGINT/SIGTERM, 141 stdout closed."

func (a *app) newSkillsCmd() *cli.Command {
	return &cli.Command{
		Name:      "skills",
		Usage:     "list the skills a server publishes",
		ArgsUsage: "SRV",
		Description: "Lists the skills of a server that declares the skills extension (skills/list), one line each: " +
			"its name and description. Nothing else is read: no skill file is fetched before skills get asks for it.\n\n" +
			skillsExit,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			if len(args) != 1 {
				return usagef("skills takes SRV (or a subcommand: get, generate), got %s", count(len(args), "argument"))
			}
			return a.skillsList(ctx, args[0])
		},
		Commands: []*cli.Command{a.newSkillsGetCmd(), a.newSkillsGenerateCmd()}, // generate: skills_generate.go
	}
}

func (a *app) newSkillsGetCmd() *cli.Command {
	var dir string
	return &cli.Command{
		Name:      "get",
		Usage:     "write one of a server's skills as a skill directory",
		ArgsUsage: "SRV NAME",
		Description: "Finds the skill NAME (its frontmatter name) in the listing, reads its SKILL.md and checks its size, " +
			"its digest and its frontmatter against the listing's, then reads and checks each other file; only when all " +
			"are verified is the directory written, through a temporary directory and a rename. A mismatch writes " +
			"nothing, reads no further file, and exits 1 naming the file and what differed.\n\n" + skillsExit,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the skill directory at `DIR` (default: ./NAME); it must not exist, or be empty", Destination: &dir},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			if len(args) != 2 {
				return usagef("skills get takes SRV and NAME, got %s", count(len(args), "argument"))
			}
			if cmd.IsSet("output") && dir == "" {
				return usagef("-o needs a directory name")
			}
			if dir == "" {
				dir = args[1]
				if !validDirName(dir) {
					return usagef("the skill name %s is no directory name: give one with -o DIR", a.quote(dir, 100))
				}
			}
			if err := checkFreeDir(dir); err != nil {
				return err
			}
			return a.skillsGet(ctx, args[0], args[1], dir)
		},
	}
}

// validDirName reports whether name can be the default directory, in the
// current one: a single plain path element.
func validDirName(name string) bool {
	return name != "" && name != "." && name != ".." && filepath.Base(name) == name && filepath.IsLocal(name)
}

// checkFreeDir refuses a DIR that exists and is not an empty directory
// (exit 2), before anything is sent.
func checkFreeDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return usagef("%s exists and is not a directory: skills get writes a new directory", strconv.Quote(dir))
		}
		return usagef("cannot use %s: %v", strconv.Quote(dir), err)
	case len(entries) > 0:
		return usagef("%s is not empty: skills get writes a new directory (remove it, or give another with -o DIR)", strconv.Quote(dir))
	}
	return nil
}

// skillDoc is one skill under --json.
type skillDoc struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Files       []skillFileDoc  `json:"files"`
}

type skillFileDoc struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   *int64 `json:"size"`
}

func newSkillDoc(e *skills.Entry) skillDoc {
	d := skillDoc{Name: e.Name, Description: e.Description, URI: e.URI, Frontmatter: e.Frontmatter, Files: []skillFileDoc{}}
	for _, f := range e.Files {
		fd := skillFileDoc{URI: f.URI, Digest: f.Digest}
		if f.Sized {
			fd.Size = &f.Size
		}
		d.Files = append(d.Files, fd)
	}
	return d
}

// listedSkills connects and lists srv's skills: the entries that parse,
// and a warning for each that does not (and for a listing cut short).
func (a *app) listedSkills(ctx context.Context, srv string) (*session, []*skills.Entry, error) {
	t, err := a.target(srv)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.connect(ctx, t, connectOptions{})
	if err != nil {
		return nil, nil, err
	}
	raws, problems, err := s.conn.ListSkills(s.ctx)
	if err != nil {
		s.close()
		return nil, nil, err
	}
	name := s.conn.T.Name
	w := &warner{a: a}
	for _, p := range problems {
		w.warn(warningOf(name, p))
	}
	entries := make([]*skills.Entry, 0, len(raws))
	for i, raw := range raws {
		e, perr := skills.ParseEntry(raw)
		if perr != nil {
			msg := perr.Error()
			if se, ok := skills.Problem(perr); ok {
				msg = se.Said
			}
			w.warn(render.Warning{Server: name, Kind: orNil(client.KindSkill), Item: orNil("#" + strconv.Itoa(i)), Code: "bad_item",
				Message: fmt.Sprintf("server %q: skills/list entry #%d cannot be used (%s); left out", name, i, msg)})
			continue
		}
		entries = append(entries, e)
	}
	w.flush(name)
	return s, entries, nil
}

func (a *app) skillsList(ctx context.Context, srv string) error {
	s, entries, err := a.listedSkills(ctx, srv)
	if err != nil {
		return err
	}
	defer s.close()
	if a.asJSON() {
		docs := make([]skillDoc, 0, len(entries))
		for _, e := range entries {
			docs = append(docs, newSkillDoc(e))
		}
		return a.writeDoc(map[string]any{"server": s.conn.T.Name, "skills": docs})
	}
	if len(entries) == 0 {
		a.log.Note("server %q publishes no skills", s.conn.T.Name)
		return nil
	}
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, []string{a.line(e.Name, 200), a.line(e.Description, 500)})
	}
	return a.s.WriteTable([]string{"NAME", "DESCRIPTION"}, rows)
}

// skillsGet reads the skill name of srv, verifying each file before the
// next is read, and writes the directory dir when all are verified.
func (a *app) skillsGet(ctx context.Context, srv, name, dir string) error {
	s, entries, err := a.listedSkills(ctx, srv)
	if err != nil {
		return err
	}
	defer s.close()
	server := s.conn.T.Name
	var e *skills.Entry
	for _, c := range entries {
		if c.Name == name {
			e = c
			break
		}
	}
	if e == nil {
		known := make([]string, 0, len(entries))
		for _, c := range entries {
			known = append(known, c.Name)
		}
		return &fail.Error{Code: fail.NotFound, What: "skill", Name: name, Server: server, Candidates: known,
			Message: fmt.Sprintf("server %q lists no skill named %s", server, a.quote(name, 100))}
	}
	// Every path is checked before anything is read, and each file is
	// verified before the next is read: SKILL.md (size, digest,
	// frontmatter) first.
	files := make([]skillFileData, len(e.Files))
	for i, f := range e.Files {
		path, err := e.Path(f.URI)
		if err != nil {
			return skillError(err, server, name)
		}
		files[i].path = path
	}
	if err := a.readSkillFiles(s, e, files); err != nil {
		return skillError(err, server, name)
	}
	if err := writeSkillDir(dir, files); err != nil {
		return err
	}
	if a.asJSON() {
		doc := skillGotDoc{Server: server, Skill: e.Name, Dir: dir, Files: make([]skillGotFile, 0, len(files))}
		for i, f := range files {
			doc.Files = append(doc.Files, skillGotFile{Path: f.path, URI: e.Files[i].URI, Digest: e.Files[i].Digest, Size: len(f.data)})
		}
		return a.writeDoc(doc)
	}
	a.log.Note("server %q: skill %s written to %s (%s)", server, a.quote(name, 100), dir, count(len(files), "file"))
	return nil
}

// skillGotDoc is what skills get prints under --json: the files written.
type skillGotDoc struct {
	Server string         `json:"server"`
	Skill  string         `json:"skill"`
	Dir    string         `json:"dir"`
	Files  []skillGotFile `json:"files"`
}

type skillGotFile struct {
	Path   string `json:"path"`
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// readSkillFiles reads e's files into files, in order, verifying each
// before the next is read (and SKILL.md's frontmatter first).
func (a *app) readSkillFiles(s *session, e *skills.Entry, files []skillFileData) error {
	for i, f := range e.Files {
		b, err := a.readSkillFile(s, f.URI)
		if err != nil {
			return err
		}
		if err = f.Verify(b); err == nil && i == 0 {
			err = e.CheckFrontmatter(b)
		}
		if err != nil {
			return err
		}
		files[i].data = b
	}
	return nil
}

// skillError names the server and the skill in a verification error.
func skillError(err error, server, name string) error {
	if se, ok := skills.Problem(err); ok {
		skills.Explain(se, server, name)
	}
	return err
}

type skillFileData struct {
	path string // slash-separated, under the skill's directory
	data []byte
}

// readSkillFile reads one file of a skill (resources/read) and returns its
// bytes: a text's UTF-8, a blob's decoded bytes, of the content whose uri
// is the file's (or the only content).
func (a *app) readSkillFile(s *session, uri string) ([]byte, error) {
	raw, err := s.conn.ReadResource(s.ctx, uri)
	if err != nil {
		return nil, err
	}
	items, err := render.ParseResourceContents(raw)
	if err != nil {
		return nil, a.contentError(s.conn, err)
	}
	for _, c := range items {
		if c.URI == uri || len(items) == 1 {
			if c.IsBlob {
				return c.Blob, nil
			}
			return []byte(c.Text), nil
		}
	}
	return nil, skills.Failed(s.conn.T.Name, "", "read", uri, fmt.Sprintf("resources/read answered %s, none of them this file", count(len(items), "content")))
}

// writeSkillDir writes files into a new temporary directory beside dir,
// then renames it to dir: either the whole skill is there, or nothing.
func writeSkillDir(dir string, files []skillFileData) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("cannot write the skill: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".mcpx-skill-*")
	if err != nil {
		return fmt.Errorf("cannot write the skill: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(tmp)
		}
	}()
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("cannot write the skill: %w", err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return fmt.Errorf("cannot write the skill: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("cannot write the skill: %w", err)
	}
	// An empty directory at dir (checkFreeDir) gives way to the new one.
	_ = os.Remove(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("cannot write the skill to %s: %w", strconv.Quote(dir), err)
	}
	ok = true
	return nil
}
