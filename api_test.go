package compute

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The exported API of each published library module is written down in api/: api/<module>.txt is
// the API as released (the release script writes it), api/next/<module>.txt what changed since, one
// line a name, "+ " added and "- " removed. TestAPIFiles fails when the code's exported API is not
// the released one with the changes applied, and when a changed name is not named in CHANGELOG.md's
// head section, which must then be an "Unreleased" one. After a deliberate change, regenerate the
// files with
//
//	go test -run '^TestAPIFiles$' . -update-api
//
// and say in CHANGELOG.md what changed. cmd/compute is a command: it has no Go API.

var (
	updateAPI  = flag.Bool("update-api", false, "write api/next/*.txt from the code's exported API")
	releaseAPI = flag.Bool("release-api", false, "write api/*.txt from the code's exported API and empty api/next (the release script's step)")
)

// apiModules are the library modules whose exported API is written down, by api file name.
var apiModules = []struct{ name, dir string }{
	{"compute", "."},
	{"otel", "otel"},
	{"ratelimit-redis", "ratelimit/redis"},
	{"ratelimit-file", "ratelimit/file"},
}

func TestAPIFiles(t *testing.T) {
	heading, section := changelogHead(t)
	for _, m := range apiModules {
		t.Run(m.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(m.dir, "go.mod")); err != nil {
				t.Skipf("module %s is not beside this one (%v)", m.dir, err)
			}
			api, err := exportedAPI(m.dir)
			require.NoError(t, err)
			basePath := filepath.Join("api", m.name+".txt")
			nextPath := filepath.Join("api", "next", m.name+".txt")
			if *releaseAPI {
				require.NoError(t, os.MkdirAll(filepath.Join("api", "next"), 0o755))
				require.NoError(t, os.WriteFile(basePath, []byte(strings.Join(api, "\n")+"\n"), 0o644))
				require.NoError(t, os.WriteFile(nextPath, nil, 0o644))
				return
			}
			base, err := readLines(basePath)
			require.NoError(t, err)
			changes := apiDiff(base, api)
			if *updateAPI {
				require.NoError(t, os.MkdirAll(filepath.Dir(nextPath), 0o755))
				require.NoError(t, os.WriteFile(nextPath, []byte(strings.Join(append(changes, ""), "\n")), 0o644))
			}
			next, err := readLines(nextPath)
			require.NoError(t, err)
			require.Equal(t, strings.Join(changes, "\n"), strings.Join(next, "\n"),
				"the exported API of %s is not %s with %s applied: if the change is deliberate, run\n"+
					"\tgo test -run '^TestAPIFiles$' . -update-api\nand say what changed in CHANGELOG.md", m.dir, basePath, nextPath)
			if len(changes) == 0 {
				return
			}
			require.Regexp(t, `^## Unreleased `, heading,
				"%s lists API changes, so CHANGELOG.md's head must be the unreleased version's section", nextPath)
			mentioned := changelogNames(section)
			added := map[string]bool{} // types added whole: naming the type names its members
			for _, c := range changes {
				if apiOwner(c) == "" && strings.HasPrefix(c, "+ ") && strings.Contains(c, ", type ") {
					added[apiName(c)] = true
				}
			}
			var unnamed []string
			for _, c := range changes {
				if name := apiName(c); !mentioned[name] && !(added[apiOwner(c)] && mentioned[apiOwner(c)]) {
					unnamed = append(unnamed, fmt.Sprintf("`%s` (%s)", name, c))
				}
			}
			require.Empty(t, unnamed, "%s lists API changes that CHANGELOG.md's head section does not name", nextPath)
		})
	}
}

// readLines reads a file's non-empty lines; a missing file has none.
func readLines(name string) ([]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var lines []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// apiDiff lists the lines of now missing from base ("- ") and those of now not in base ("+ "),
// sorted by the line they name.
func apiDiff(base, now []string) []string {
	var d []string
	for _, l := range base {
		if !slices.Contains(now, l) {
			d = append(d, "- "+l)
		}
	}
	for _, l := range now {
		if !slices.Contains(base, l) {
			d = append(d, "+ "+l)
		}
	}
	slices.SortStableFunc(d, func(a, b string) int { return strings.Compare(a[2:], b[2:]) })
	return d
}

// apiLineName picks the changed identifier out of an API line: the name after func, const, var or
// type, a method's name, or the field or method after a type's ", ".
var apiLineName = regexp.MustCompile(`^[+-] pkg [^,]+, (?:(?:func|const|var) (\w+)|method \([^)]*\) (\w+)|type (\w+)[^,{]*(?:, (?:embedded )?\W*(?:\w+\.)?(\w+))?)`)

// apiName is the identifier a changed API line is about.
func apiName(line string) string {
	m := apiLineName.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	for _, s := range []string{m[4], m[1], m[2], m[3]} {
		if s != "" {
			return s
		}
	}
	return line
}

// apiMember picks the type out of a line about a method, a field or an interface's method.
var apiMember = regexp.MustCompile(`^[+-] pkg [^,]+, (?:method \(\*?(\w+)|type (\w+)[^,{]*, )`)

// apiOwner is the type whose member a changed API line is about, or "" for a line about a
// package-level name.
func apiOwner(line string) string {
	m := apiMember.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

// changelogNames are the identifiers inside the `code` spans of a CHANGELOG section.
func changelogNames(section []string) map[string]bool {
	names := map[string]bool{}
	for _, span := range regexp.MustCompile("`[^`]+`").FindAllString(strings.Join(section, "\n"), -1) {
		for _, id := range regexp.MustCompile(`\w+`).FindAllString(span, -1) {
			names[id] = true
		}
	}
	return names
}

// exportedAPI lists the exported API of the module in dir: its packages that are neither commands
// nor internal nor test data, without the modules nested in it, one sorted line a name in the
// manner of Go's api/*.txt (parameter names left out, constants without their values).
func exportedAPI(dir string) ([]string, error) {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		return nil, fmt.Errorf("%s/go.mod has no module line", dir)
	}
	modPath := string(m[1])
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", false
	var lines []string
	err = walkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if p != dir {
			if name == "testdata" || name == "internal" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		pkgLines, err := packageAPI(&ctx, p, path.Join(modPath, filepath.ToSlash(rel)))
		lines = append(lines, pkgLines...)
		return err
	})
	slices.Sort(lines)
	return slices.Compact(lines), err
}

// packageAPI lists the exported API of the package in dir (none for a command or no package).
func packageAPI(ctx *build.Context, dir, importPath string) ([]string, error) {
	entries, err := readDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, e.Name()); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" {
			return nil, nil
		}
		files = append(files, f)
	}
	l := apiLister{fset: fset, prefix: "pkg " + importPath + ", "}
	for _, f := range files {
		for _, decl := range f.Decls {
			l.decl(decl)
		}
	}
	return l.lines, nil
}

// apiLister writes the API lines of one package's declarations.
type apiLister struct {
	fset   *token.FileSet
	prefix string
	lines  []string
}

func (l *apiLister) add(format string, args ...any) {
	l.lines = append(l.lines, l.prefix+fmt.Sprintf(format, args...))
}

// expr prints a type expression on one line.
func (l *apiLister) expr(e ast.Expr) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, l.fset, e); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// fields prints a parameter or result list without the names, a name's type once per name.
func (l *apiLister) fields(fl *ast.FieldList) []string {
	var out []string
	if fl == nil {
		return out
	}
	for _, f := range fl.List {
		for range max(1, len(f.Names)) {
			out = append(out, l.expr(f.Type))
		}
	}
	return out
}

// signature prints a function type's parameters and results.
func (l *apiLister) signature(ft *ast.FuncType) string {
	s := "(" + strings.Join(l.fields(ft.Params), ", ") + ")"
	switch res := l.fields(ft.Results); len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}

// typeParams prints a type parameter list as written, or nothing.
func (l *apiLister) typeParams(fl *ast.FieldList) string {
	if fl == nil {
		return ""
	}
	var ps []string
	for _, f := range fl.List {
		var names []string
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		ps = append(ps, strings.Join(names, ", ")+" "+l.expr(f.Type))
	}
	return "[" + strings.Join(ps, ", ") + "]"
}

func (l *apiLister) decl(decl ast.Decl) {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return
		}
		if d.Recv == nil {
			l.add("func %s%s%s", d.Name.Name, l.typeParams(d.Type.TypeParams), l.signature(d.Type))
			return
		}
		recv := d.Recv.List[0].Type
		base := recv
		if s, ok := base.(*ast.StarExpr); ok {
			base = s.X
		}
		switch b := base.(type) {
		case *ast.IndexExpr:
			base = b.X
		case *ast.IndexListExpr:
			base = b.X
		}
		if id, ok := base.(*ast.Ident); ok && id.IsExported() {
			l.add("method (%s) %s%s", l.expr(recv), d.Name.Name, l.signature(d.Type))
		}
	case *ast.GenDecl:
		var typ ast.Expr // a constant's type, carried to the specs after it in the group
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				l.typeSpec(s)
			case *ast.ValueSpec:
				kind := "var"
				if d.Tok == token.CONST {
					kind = "const"
					if s.Type != nil || len(s.Values) > 0 {
						typ = s.Type
					}
				} else {
					typ = s.Type
				}
				for _, n := range s.Names {
					if !n.IsExported() {
						continue
					}
					if typ != nil {
						l.add("%s %s %s", kind, n.Name, l.expr(typ))
					} else {
						l.add("%s %s", kind, n.Name)
					}
				}
			}
		}
	}
}

func (l *apiLister) typeSpec(s *ast.TypeSpec) {
	if !s.Name.IsExported() {
		return
	}
	name := s.Name.Name + l.typeParams(s.TypeParams)
	if s.Assign.IsValid() {
		l.add("type %s = %s", name, l.expr(s.Type))
		return
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		l.add("type %s struct", name)
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 {
				if id := embeddedName(f.Type); ast.IsExported(id) {
					l.add("type %s struct, embedded %s", name, l.expr(f.Type))
				}
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					l.add("type %s struct, %s %s", name, n.Name, l.expr(f.Type))
				}
			}
		}
	case *ast.InterfaceType:
		var members []string
		unexported := false
		for _, f := range t.Methods.List {
			if len(f.Names) == 0 {
				members = append(members, l.expr(f.Type))
				l.add("type %s interface, embedded %s", name, l.expr(f.Type))
				continue
			}
			for _, n := range f.Names {
				if !n.IsExported() {
					unexported = true
					continue
				}
				members = append(members, n.Name)
				if ft, ok := f.Type.(*ast.FuncType); ok {
					l.add("type %s interface, %s%s", name, n.Name, l.signature(ft))
				}
			}
		}
		slices.Sort(members)
		if unexported {
			members = append(members, "unexported methods")
		}
		l.add("type %s interface { %s }", name, strings.Join(members, ", "))
	default:
		l.add("type %s %s", name, l.expr(s.Type))
	}
}

// embeddedName is the type name of an embedded field (T, *T, p.T, T[X]).
func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return ""
}

func TestAPIName(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"+ pkg p, func New(string) (*Client, error)":            "New",
		"- pkg p, method (*Instances) Get(context.Context) int": "Get",
		"+ pkg p, type Client struct":                           "Client",
		"+ pkg p, type Client struct, Images *Images":           "Images",
		"+ pkg p, type Page[T any] struct, embedded *sub.Base":  "Base",
		"+ pkg p, type Limiter interface { Wait }":              "Limiter",
		"+ pkg p, type Limiter interface, Wait(int) error":      "Wait",
		"+ pkg p, const CodeX ErrorCode":                        "CodeX",
		"+ pkg p, var ErrNotFound":                              "ErrNotFound",
		"+ pkg p, type IPVersion string":                        "IPVersion",
	} {
		require.Equal(t, want, apiName(line), line)
	}
	for line, want := range map[string]string{
		"+ pkg p, func New(string) (*Client, error)":            "",
		"- pkg p, method (*Instances) Get(context.Context) int": "Instances",
		"- pkg p, method (Status) String() string":              "Status",
		"+ pkg p, type Client struct":                           "",
		"+ pkg p, type Client struct, Images *Images":           "Client",
		"+ pkg p, type Limiter interface { Wait }":              "",
		"+ pkg p, type Limiter interface, Wait(int) error":      "Limiter",
	} {
		require.Equal(t, want, apiOwner(line), line)
	}
}
