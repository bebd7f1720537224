package compute_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// block is one fenced code block of the README or of a guide.
type block struct {
	file string
	lang string
	line int
	code string
}

// where names the block's first line for messages: README.md:87.
func (b block) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docFiles are the documents whose blocks the tests check: the README, then the guides in docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, guides, "the guides in docs/")
	return append([]string{"README.md"}, guides...)
}

// fileBlocks reads the fenced code blocks of one document.
func fileBlocks(t *testing.T, file string) []block {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []block
	var cur *block
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{file: file, lang: strings.TrimPrefix(line, "```"), line: n}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	require.Nil(t, cur, "%s: an unclosed code block", file)
	require.NotRegexp(t, `(?m)^[A-Z][A-Z_]{5,}$`, string(raw), "%s: a placeholder left in it", file)
	return out
}

// docBlocks reads the fenced code blocks of the README and of every guide.
func docBlocks(t *testing.T) []block {
	t.Helper()
	var out []block
	for _, f := range docFiles(t) {
		out = append(out, fileBlocks(t, f)...)
	}
	return out
}

// readmeCommandTests are the shell commands of the README and the guides that a test runs, not .ci/run, with the test
// that does (it must exist in the named file).
var readmeCommandTests = map[string][2]string{
	"go mod edit -replace github.com/compute-sdk/compute-go=../compute-go":     {"readme_test.go", "TestReadmeGoBlocksCompileAndRun"},
	"go get github.com/compute-sdk/compute-go@v0.2.0":                          {"readme_test.go", "TestReadmeGoBlocksCompileAndRun"},
	"go run github.com/compute-sdk/compute-go/cmd/compute-fake -print-catalog": {"readme_test.go", "TestReadmeGoBlocksCompileAndRun"},
	"go install github.com/compute-sdk/compute-go/cmd/compute-fake":            {"cmd/compute-fake/main_test.go", "TestGoRunAndInstallFromAnotherModule"},
	"go run github.com/compute-sdk/compute-go/cmd/compute-fake -speed 0":       {"cmd/compute-fake/main_test.go", "TestGoRunAndInstallFromAnotherModule"},
	"go run ./cmd/compute-fake":                                                {"cmd/compute-fake/main_test.go", "TestBannerAndCleanStop"},
	"go run ./cmd/compute-fake -addr 127.0.0.1:0 -speed 0 -rate 0":             {"cmd/compute-fake/main_test.go", "TestCurlFlowAgainstTheBinary"},
	"go run ./cmd/compute-fake -print-catalog":                                 {"cmd/compute-fake/main_test.go", "TestPrintCatalog"},
}

// TestReadmeShellCommandsAreExercised: every shell command in the README and the guides (its
// trailing comment aside) is either a line of .ci/run (which CI runs), a command a named test runs,
// or a curl command. The curl commands are the compute-fake walk-through: cmd/compute-fake's
// TestDocumentedCurlCommands requires docs/compute-fake.md's curl commands to be exactly, in order,
// the requests TestCurlFlowAgainstTheBinary sends, so a curl line that test does not send fails there.
func TestReadmeShellCommandsAreExercised(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	require.NoError(t, err)
	ciLines := map[string]bool{}
	for _, l := range strings.Split(string(ci), "\n") {
		ciLines[strings.TrimSpace(l)] = true
	}
	fakeTest, err := os.ReadFile("cmd/compute-fake/main_test.go")
	require.NoError(t, err)
	var commands int
	for _, b := range docBlocks(t) {
		if b.lang != "sh" {
			continue
		}
		for _, cmd := range shellCommands(b.code) {
			commands++
			if c, _, ok := strings.Cut(cmd, " # "); ok {
				cmd = strings.TrimSpace(c)
			}
			switch {
			case ciLines[cmd]:
			case readmeCommandTests[cmd] != [2]string{}:
				where := readmeCommandTests[cmd]
				src, err := os.ReadFile(where[0])
				require.NoError(t, err)
				assert.Contains(t, string(src), "func "+where[1]+"(", "%s: %q", b.where(), cmd)
			case strings.HasPrefix(cmd, "curl ") && b.file == filepath.Join("docs", "compute-fake.md"):
				assert.Contains(t, string(fakeTest), "func TestDocumentedCurlCommands(",
					"%s: %q is checked against the walk-through", b.where(), cmd)
			default:
				t.Errorf("%s: %q is run neither by .ci/run nor by a test", b.where(), cmd)
			}
		}
	}
	assert.Positive(t, commands)
}

// shellCommands joins continuation lines and drops comments and blank lines.
func shellCommands(code string) []string {
	var out []string
	var cur string
	for _, l := range strings.Split(code, "\n") {
		l = strings.TrimSpace(l)
		if cur == "" && (l == "" || strings.HasPrefix(l, "#")) {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		out = append(out, strings.Join(strings.Fields(cur+l), " "))
		cur = ""
	}
	return out
}

// snippetPrelude makes any fragment's imports usable without "imported and not used" errors.
const snippetPrelude = `import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

var (
	_ = errors.Is
	_ = fmt.Sprint
	_ = log.Println
	_ = slog.Info
	_ atomic.Int64
	_ = time.Second
	_ context.Context
	_ *testing.T
	_ = computetest.NewServer
	_ compute.Client
)
`

// readmeSetupPrefixes pick out the README's setup commands, run as written in a scratch module.
var readmeSetupPrefixes = []string{
	"go mod edit -replace github.com/compute-sdk/compute-go=",
	"go get github.com/compute-sdk/compute-go@",
	"go run github.com/compute-sdk/compute-go/cmd/compute-fake -print-catalog",
}

// TestReadmeGoBlocksCompileAndRun plays a newcomer: in a fresh module beside a checkout (named
// ../compute-go, as the README says), it runs the README's setup commands exactly as written and
// nothing else (same environment as this test, so the module cache may be empty and the module
// proxy fills it), then builds every Go block of the README and of every guide in docs/: a whole
// program as is, declarations in a package, and statements inside a function that has ctx, c, id,
// token and url in scope. The README's create-and-wait program then runs against computetest.
func TestReadmeGoBlocksCompileAndRun(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to build the README's blocks")
	root, err := os.Getwd()
	require.NoError(t, err)
	parent := t.TempDir()
	require.NoError(t, os.Symlink(root, filepath.Join(parent, "compute-go")))
	dir := filepath.Join(parent, "app")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module readmecheck\n\ngo 1.25\n"), 0o644))

	env := append(os.Environ(), "GOWORK=off")
	run := func(name string, args ...string) *exec.Cmd {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		t.Cleanup(cancel)
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = env
		return cmd
	}
	var setup int
	for _, b := range fileBlocks(t, "README.md") {
		if b.lang != "sh" {
			continue
		}
		for _, line := range shellCommands(b.code) {
			for _, prefix := range readmeSetupPrefixes {
				if strings.HasPrefix(line, prefix) {
					setup++
					out, err := run("sh", "-c", line).CombinedOutput()
					require.NoError(t, err, "%s: %s\n%s", b.where(), line, out)
				}
			}
		}
	}
	require.Equal(t, len(readmeSetupPrefixes), setup, "the README's setup commands")
	goCmd := func(args ...string) *exec.Cmd { return run(goBin, args...) }

	var programs []string
	statement := regexp.MustCompile(`\breturn\b`)
	for i, b := range docBlocks(t) {
		if b.lang != "go" {
			continue
		}
		if strings.Contains(b.code, "computeotel.") {
			// The OpenTelemetry module's tests build these (this module does not depend on it),
			// and they read only the README.
			assert.Equal(t, "README.md", b.file, "%s: an OpenTelemetry block no test builds", b.where())
			continue
		}
		pkg := fmt.Sprintf("b%03d", i)
		var src string
		switch {
		case strings.HasPrefix(b.code, "package main"):
			src = b.code
			programs = append(programs, pkg)
			assert.Equal(t, "README.md", b.file, "%s: the one whole program is the README's", b.where())
		case strings.HasPrefix(b.code, "func "):
			src = "package " + pkg + "\n\n" + snippetPrelude + "\n" + b.code
		case statement.MatchString(b.code):
			src = "package " + pkg + "\n\n" + snippetPrelude +
				"\nfunc snippet(ctx context.Context, c *compute.Client, id, token, url string) error {\n" + b.code + "\treturn nil\n}\n"
		default:
			src = "package " + pkg + "\n\n" + snippetPrelude +
				"\nfunc snippet(ctx context.Context, c *compute.Client, id, token, url string) {\n" + b.code + "}\n"
		}
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, "main.go"), []byte(src), 0o644))
		t.Logf("%s -> %s", b.where(), pkg)
	}
	out, err := goCmd("build", "./...").CombinedOutput()
	require.NoError(t, err, "the Go blocks of the README or the guides do not build (the log maps packages to lines):\n%s", out)
	require.Len(t, programs, 1, "the README has one whole program, the create-and-wait example")

	srv := computetest.NewServer()
	defer srv.Close()
	bin := filepath.Join(dir, "program")
	out, err = goCmd("build", "-o", bin, "./"+programs[0]).CombinedOutput()
	require.NoError(t, err, "%s", out)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	program := exec.CommandContext(ctx, bin)
	program.Env = append(os.Environ(), "COMPUTE_API_URL="+srv.URL, "COMPUTE_API_TOKEN="+srv.Token)
	out, err = program.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, `^ins-000001 active \d+\.\d+\.\d+\.\d+\n$`, string(out))
}

// TestReadmeIsShortAndLinksEveryGuide: the README stays a short front page (under 300 lines) and
// links every guide in docs/, so that none is orphaned.
func TestReadmeIsShortAndLinksEveryGuide(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	lines := strings.Count(string(raw), "\n")
	assert.Less(t, lines, 300, "README.md has %d lines: move detail to a guide in docs/", lines)
	for _, f := range docFiles(t)[1:] {
		assert.True(t, strings.Contains(string(raw), "]("+filepath.ToSlash(f)+")"), "the README links %s", f)
	}
}

// TestDocLinksResolve: every relative link of the README and the guides leads to a file of the
// repository, and a link to a heading (file.md#heading, or #heading within the page) to a heading
// that exists, as GitHub spells its anchor.
func TestDocLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	var links int
	for _, file := range docFiles(t) {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		inCode := false
		for n, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			}
			if inCode {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				_, err := os.Stat(dest)
				if !assert.NoError(t, err, "%s:%d: %s leads to no file", file, n+1, target) || anchor == "" {
					continue
				}
				require.True(t, strings.HasSuffix(dest, ".md"), "%s:%d: %s: an anchor into a file that is not Markdown", file, n+1, target)
				assert.Contains(t, headingAnchors(t, dest), anchor, "%s:%d: %s leads to no heading", file, n+1, target)
			}
		}
	}
	assert.Positive(t, links)
}

// headingAnchors are the anchors GitHub gives a Markdown file's headings: lower case, punctuation
// dropped, spaces as hyphens, a repeated anchor suffixed -1, -2...
func headingAnchors(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	seen := map[string]int{}
	var out []string
	inCode := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if inCode || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, k))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// TestPackageDocLinksResolve: every [Name] of the package documentation (the tour pkg.go.dev shows
// first) is a link that resolves, to an exported name of the package or to a guide, since an
// unresolved one is shown as plain brackets without an error anywhere.
func TestPackageDocLinksResolve(t *testing.T) {
	fset := token.NewFileSet()
	matches, err := compute.TopGoFiles()
	require.NoError(t, err)
	var files []*ast.File
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, m, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/compute-sdk/compute-go")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(pkg.Doc, "Package compute is"), "the package doc is doc.go's whole comment")
	resolved := map[string]bool{}
	var walk func(texts []comment.Text)
	walk = func(texts []comment.Text) {
		for _, x := range texts {
			switch x := x.(type) {
			case *comment.DocLink:
				name := x.Name
				if x.Recv != "" {
					name = x.Recv + "." + x.Name
				}
				resolved[name] = true
			case *comment.Link:
				walk(x.Text)
			}
		}
	}
	parsed := pkg.Parser().Parse(pkg.Doc)
	for _, b := range parsed.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			walk(b.Text)
		case *comment.Heading:
			walk(b.Text)
		case *comment.List:
			for _, item := range b.Items {
				for _, c := range item.Content {
					if p, ok := c.(*comment.Paragraph); ok {
						walk(p.Text)
					}
				}
			}
		}
	}
	defined := map[string]bool{}
	for _, l := range parsed.Links {
		defined[l.Text] = true
	}
	candidates := regexp.MustCompile(`\[\*?([A-Za-z][\w .-]*)\]`).FindAllStringSubmatch(pkg.Doc, -1)
	require.NotEmpty(t, candidates)
	for _, m := range candidates {
		assert.True(t, resolved[m[1]] || defined[m[1]], "the package doc's [%s] resolves to no name and no link", m[1])
	}
}

// TestDocsUsePlainWords: the README, the guides and the package doc speak of the API as a user
// sees it, never in the words of the project's internal notes (a seed, the extended contract, a
// decision's D-number).
func TestDocsUsePlainWords(t *testing.T) {
	internal := regexp.MustCompile(`(?i)\bseed\b|\bextended contract\b|\bD\d{1,3}\b`)
	for _, f := range append(docFiles(t), "doc.go") {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for n, line := range strings.Split(string(raw), "\n") {
			assert.False(t, internal.MatchString(line), "%s:%d uses an internal word: %s", f, n+1, line)
		}
	}
}
