// Command crosscheck type-checks and vets the module for other platforms
// without compiling it: for each GOOS/GOARCH given it loads every package
// of the module, its tests and all their dependencies (the standard library
// included) from source with go/types, reports every type error, and runs
// the analyzers of `go vet` on the module's packages.
//
// `go vet` and `go build` need the compiled export data of every dependency,
// so checking seven platforms that way compiles everything seven times; type
// checking from source skips code generation and takes a fraction of that.
// make cross still builds the real binaries.
//
// Usage:
//
//	go run ./scripts/crosscheck [-pkgs patterns] GOOS/GOARCH...
//
// It exits 1 when any platform has a type error or a vet finding.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/packages"
)

// suite is the analyzer list of cmd/vet, as far as this x/tools has them
// (hostport and waitgroup are newer; the Linux `go vet` in make lint runs
// them on the files every platform shares).
var suite = []*analysis.Analyzer{
	appends.Analyzer,
	asmdecl.Analyzer,
	assign.Analyzer,
	atomic.Analyzer,
	bools.Analyzer,
	buildtag.Analyzer,
	cgocall.Analyzer,
	composite.Analyzer,
	copylock.Analyzer,
	defers.Analyzer,
	directive.Analyzer,
	errorsas.Analyzer,
	framepointer.Analyzer,
	httpresponse.Analyzer,
	ifaceassert.Analyzer,
	loopclosure.Analyzer,
	lostcancel.Analyzer,
	nilfunc.Analyzer,
	printf.Analyzer,
	shift.Analyzer,
	sigchanyzer.Analyzer,
	slog.Analyzer,
	stdmethods.Analyzer,
	stdversion.Analyzer,
	stringintconv.Analyzer,
	structtag.Analyzer,
	tests.Analyzer,
	testinggoroutine.Analyzer,
	timeformat.Analyzer,
	unmarshal.Analyzer,
	unreachable.Analyzer,
	unsafeptr.Analyzer,
	unusedresult.Analyzer,
}

func main() {
	pkgs := flag.String("pkgs", "./...", "comma-separated package patterns to check")
	verbose := flag.Bool("v", false, "print the time each platform took")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: crosscheck [-v] [-pkgs patterns] GOOS/GOARCH...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := analysis.Validate(suite); err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(2)
	}
	c := &checker{fset: token.NewFileSet()}
	wd, _ := os.Getwd()
	failed := false
	for _, p := range flag.Args() {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok || goos == "" || goarch == "" {
			fmt.Fprintf(os.Stderr, "crosscheck: %q is not GOOS/GOARCH\n", p)
			os.Exit(2)
		}
		start := time.Now()
		problems, err := c.check(goos, goarch, strings.Split(*pkgs, ","))
		if err != nil {
			fmt.Fprintf(os.Stderr, "crosscheck: %s: %v\n", p, err)
			os.Exit(2)
		}
		for _, msg := range problems {
			if wd != "" {
				msg = strings.ReplaceAll(msg, wd+string(os.PathSeparator), "")
			}
			fmt.Fprintf(os.Stderr, "%s: %s\n", p, msg)
		}
		if len(problems) > 0 {
			failed = true
		}
		if *verbose {
			fmt.Fprintf(os.Stderr, "crosscheck: %s: %d problems, %.1fs\n", p, len(problems), time.Since(start).Seconds())
		}
	}
	if failed {
		os.Exit(1)
	}
}

// checker keeps the parsed files across platforms: most files are the same
// for every platform, and go/types does not modify the syntax trees.
type checker struct {
	dir    string // of the module; "" for the current directory
	fset   *token.FileSet
	mu     sync.Mutex
	parsed map[string]*parseResult
}

type parseResult struct {
	once sync.Once
	file *ast.File
	err  error
}

func (c *checker) parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	c.mu.Lock()
	if c.parsed == nil {
		c.parsed = map[string]*parseResult{}
	}
	r := c.parsed[filename]
	if r == nil {
		r = &parseResult{}
		c.parsed[filename] = r
	}
	c.mu.Unlock()
	r.once.Do(func() {
		r.file, r.err = parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	})
	return r.file, r.err
}

// check loads the patterns for one platform and returns its problems:
// package errors (listing, parsing, type checking) and vet diagnostics.
func (c *checker) check(goos, goarch string, patterns []string) ([]string, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
			packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedTypesSizes |
			packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
		Dir:       c.dir,
		Tests:     true,
		Env:       append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
		Fset:      c.fset,
		ParseFile: c.parseFile,
	}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var problems []string
	seen := map[string]bool{}
	add := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			problems = append(problems, msg)
		}
	}
	// broken: the packages with errors, or importing one; the analyzers
	// skip them (as go vet does).
	broken := map[*packages.Package]bool{}
	packages.Visit(roots, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			add(e.Error())
		}
		broken[p] = len(p.Errors) > 0
		for _, imp := range p.Imports {
			broken[p] = broken[p] || broken[imp]
		}
	})
	// Vet what `go vet` would: each package with its in-package tests,
	// the external test packages, not the generated test mains.
	var targets []*packages.Package
	hasTestVariant := map[string]bool{}
	for _, p := range roots {
		if p.ID == p.PkgPath+" ["+p.PkgPath+".test]" {
			hasTestVariant[p.PkgPath] = true
		}
	}
	for _, p := range roots {
		switch {
		case p.ID == p.PkgPath && strings.HasSuffix(p.PkgPath, ".test"): // generated test main
		case p.ID == p.PkgPath && hasTestVariant[p.PkgPath]:
		case broken[p]:
		default:
			targets = append(targets, p)
		}
	}
	r := newRunner(c.fset)
	for _, p := range targets {
		r.analyze(p, suite, true)
	}
	sort.Strings(r.diags)
	for _, d := range r.diags {
		add(d)
	}
	return problems, nil
}

// runner runs analyzers over packages loaded from source, keeping results
// and facts in memory (all packages of one load share their types.Objects).
type runner struct {
	fset    *token.FileSet
	results map[actionKey]*actionResult
	objFact map[objFactKey]analysis.Fact
	pkgFact map[pkgFactKey]analysis.Fact
	diags   []string
}

type actionKey struct {
	a *analysis.Analyzer
	p *packages.Package
}

type actionResult struct {
	result   any
	err      error
	reported bool
}

type objFactKey struct {
	obj types.Object
	t   reflect.Type
}

type pkgFactKey struct {
	pkg *types.Package
	t   reflect.Type
}

func newRunner(fset *token.FileSet) *runner {
	return &runner{
		fset:    fset,
		results: map[actionKey]*actionResult{},
		objFact: map[objFactKey]analysis.Fact{},
		pkgFact: map[pkgFactKey]analysis.Fact{},
	}
}

// analyze runs each analyzer on p (reporting diagnostics when report is
// set), after its prerequisites on p and, for analyzers with facts, after
// the same analyzer on every package p imports.
func (r *runner) analyze(p *packages.Package, as []*analysis.Analyzer, report bool) {
	for _, a := range as {
		r.run(a, p, report)
	}
}

func (r *runner) run(a *analysis.Analyzer, p *packages.Package, report bool) *actionResult {
	key := actionKey{a, p}
	if res, ok := r.results[key]; ok && (res.reported || !report) {
		return res
	}
	// Not run yet, or run before for its facts and result only: run (again)
	// to keep the diagnostics; facts are idempotent.
	res := &actionResult{reported: report}
	r.results[key] = res
	inputs := map[*analysis.Analyzer]any{}
	for _, req := range a.Requires {
		rr := r.run(req, p, false)
		if rr.err != nil {
			res.err = fmt.Errorf("%s: prerequisite %s failed: %v", a.Name, req.Name, rr.err)
			return res
		}
		inputs[req] = rr.result
	}
	if len(a.FactTypes) > 0 {
		for _, imp := range sortedImports(p) {
			r.run(a, imp, false)
		}
	}
	var diags []analysis.Diagnostic
	pass := &analysis.Pass{
		Analyzer:     a,
		Fset:         r.fset,
		Files:        p.Syntax,
		OtherFiles:   p.OtherFiles,
		IgnoredFiles: p.IgnoredFiles,
		Pkg:          p.Types,
		TypesInfo:    p.TypesInfo,
		TypesSizes:   p.TypesSizes,
		ResultOf:     inputs,
		Report:       func(d analysis.Diagnostic) { diags = append(diags, d) },
		ReadFile: func(name string) ([]byte, error) {
			if !slices.Contains(p.OtherFiles, name) && !slices.Contains(p.IgnoredFiles, name) && !slices.Contains(p.CompiledGoFiles, name) {
				return nil, fmt.Errorf("%s is not a file of package %s", name, p.PkgPath)
			}
			return os.ReadFile(name)
		},
		ImportObjectFact: func(obj types.Object, fact analysis.Fact) bool {
			f, ok := r.objFact[objFactKey{obj, reflect.TypeOf(fact)}]
			if ok {
				reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(f).Elem())
			}
			return ok
		},
		ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
			r.objFact[objFactKey{obj, reflect.TypeOf(fact)}] = fact
		},
		ImportPackageFact: func(pkg *types.Package, fact analysis.Fact) bool {
			f, ok := r.pkgFact[pkgFactKey{pkg, reflect.TypeOf(fact)}]
			if ok {
				reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(f).Elem())
			}
			return ok
		},
		ExportPackageFact: func(fact analysis.Fact) {
			r.pkgFact[pkgFactKey{p.Types, reflect.TypeOf(fact)}] = fact
		},
		AllObjectFacts: func() []analysis.ObjectFact {
			var out []analysis.ObjectFact
			for k, f := range r.objFact {
				if hasFactType(a, k.t) {
					out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
				}
			}
			return out
		},
		AllPackageFacts: func() []analysis.PackageFact {
			var out []analysis.PackageFact
			for k, f := range r.pkgFact {
				if hasFactType(a, k.t) {
					out = append(out, analysis.PackageFact{Package: k.pkg, Fact: f})
				}
			}
			return out
		},
	}
	if p.Module != nil {
		pass.Module = &analysis.Module{Path: p.Module.Path, Version: p.Module.Version, GoVersion: p.Module.GoVersion}
	}
	res.result, res.err = a.Run(pass)
	if res.err != nil {
		r.diags = append(r.diags, fmt.Sprintf("%s: %s failed: %v", p.PkgPath, a.Name, res.err))
		return res
	}
	if report {
		for _, d := range diags {
			r.diags = append(r.diags, fmt.Sprintf("%s: %s (%s)", r.fset.Position(d.Pos), d.Message, a.Name))
		}
	}
	return res
}

func hasFactType(a *analysis.Analyzer, t reflect.Type) bool {
	for _, f := range a.FactTypes {
		if reflect.TypeOf(f) == t {
			return true
		}
	}
	return false
}

func sortedImports(p *packages.Package) []*packages.Package {
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	out := make([]*packages.Package, len(paths))
	for i, path := range paths {
		out[i] = p.Imports[path]
	}
	return out
}
