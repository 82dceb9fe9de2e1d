package lab_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exportsFile is the generated file that gives package lab every exported
// name of the engine.
const exportsFile = "exports.go"

// TestExports regenerates exports.go from the engine's exported names and
// fails when the committed file differs: a name the engine gains, loses or
// changes must reach lab. Run `go test ./lab -run TestExports -update`
// after changing what lab/internal/engine exports.
func TestExports(t *testing.T) {
	t.Parallel()
	got, err := generateExports(filepath.Join("internal", "engine"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(exportsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(exportsFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is not what the engine exports; run go test ./lab -run TestExports -update (-committed +generated):\n%s", exportsFile, diff)
	}
}

// generateExports writes, for every exported top-level name in the
// non-test files of the engine in dir, an alias (types), a constant or a
// forwarding function (functions) under the same name and doc comment.
func generateExports(dir string) ([]byte, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	g := exportWriter{imports: map[string]bool{}}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if err := g.file(f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return g.source()
}

// exportWriter collects the declarations of exports.go and the imports
// their signatures need.
type exportWriter struct {
	body    bytes.Buffer
	imports map[string]bool
	// fileImports maps the current file's import names to their paths.
	fileImports map[string]string
}

func (g *exportWriter) file(f *ast.File) error {
	g.fileImports = map[string]string{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := importName(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		g.fileImports[name] = path
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				if err := g.function(d); err != nil {
					return err
				}
			}
		case *ast.GenDecl:
			if err := g.group(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// group writes the exported types and constants of one declaration,
// keeping the group's doc comment and each name's own.
func (g *exportWriter) group(d *ast.GenDecl) error {
	var lines []string
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			if s.TypeParams != nil {
				return fmt.Errorf("generic type %s: exports.go would need its type parameters", s.Name.Name)
			}
			doc := s.Doc
			if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			g.body.WriteString(comment(doc))
			fmt.Fprintf(&g.body, "type %s = engine.%[1]s\n\n", s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				switch {
				case !n.IsExported():
				case d.Tok == token.VAR:
					// An alias of a variable would be a copy: lab's and the
					// engine's would part at the first assignment.
					return fmt.Errorf("exported variable %s: lab cannot give it; export a function or a constant", n.Name)
				default:
					lines = append(lines, comment(s.Doc)+fmt.Sprintf("%s = engine.%[1]s%s\n", n.Name, trailing(s.Comment)))
				}
			}
		}
	}
	switch {
	case len(lines) == 1 && len(d.Specs) == 1:
		g.body.WriteString(comment(d.Doc) + "const " + lines[0] + "\n")
	case len(lines) > 0:
		g.body.WriteString(comment(d.Doc) + "const (\n" + strings.Join(lines, "") + ")\n\n")
	}
	return nil
}

// function writes a function that calls the engine's function of the same
// name with its own arguments.
func (g *exportWriter) function(d *ast.FuncDecl) error {
	ft := d.Type
	var params, args []string
	for i, field := range ft.Params.List {
		names := field.Names
		if len(names) == 0 {
			names = []*ast.Ident{ast.NewIdent(fmt.Sprintf("p%d", i))}
		}
		typ, err := g.expr(field.Type)
		if err != nil {
			return err
		}
		for _, n := range names {
			params = append(params, n.Name+" "+typ)
			arg := n.Name
			if _, ok := field.Type.(*ast.Ellipsis); ok {
				arg += "..."
			}
			args = append(args, arg)
		}
	}
	var typeParams []string
	if ft.TypeParams != nil {
		for _, field := range ft.TypeParams.List {
			c, err := g.expr(field.Type)
			if err != nil {
				return err
			}
			for _, n := range field.Names {
				typeParams = append(typeParams, n.Name+" "+c)
			}
		}
	}
	results := ""
	if ft.Results != nil {
		var rs []string
		for _, field := range ft.Results.List {
			typ, err := g.expr(field.Type)
			if err != nil {
				return err
			}
			for range max(1, len(field.Names)) {
				rs = append(rs, typ)
			}
		}
		results = " " + strings.Join(rs, ", ")
		if len(rs) > 1 {
			results = " (" + strings.Join(rs, ", ") + ")"
		}
	}
	tp := ""
	if len(typeParams) > 0 {
		tp = "[" + strings.Join(typeParams, ", ") + "]"
	}
	call := fmt.Sprintf("engine.%s(%s)", d.Name.Name, strings.Join(args, ", "))
	if results != "" {
		call = "return " + call
	}
	g.body.WriteString(comment(d.Doc))
	fmt.Fprintf(&g.body, "func %s%s(%s)%s { %s }\n\n", d.Name.Name, tp, strings.Join(params, ", "), results, call)
	return nil
}

// expr prints a type from a signature and records the packages it names.
// The engine's own types keep their names: lab has an alias for each.
func (g *exportWriter) expr(e ast.Expr) (string, error) {
	var err error
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			// A parameter's name in a func type is not a type.
			ast.Inspect(n.Type, visit)
			return false
		case *ast.SelectorExpr:
			x, _ := n.X.(*ast.Ident)
			path, ok := g.fileImports[x.Name]
			if !ok {
				err = fmt.Errorf("signature names %s.%s from no import", x.Name, n.Sel.Name)
			}
			g.imports[path] = true
			return false
		case *ast.Ident:
			if !n.IsExported() && !isPredeclared(n.Name) {
				err = fmt.Errorf("signature names unexported %s", n.Name)
			}
		}
		return true
	}
	ast.Inspect(e, visit)
	var b bytes.Buffer
	if err := format.Node(&b, token.NewFileSet(), e); err != nil {
		return "", err
	}
	return b.String(), err
}

func (g *exportWriter) source() ([]byte, error) {
	var paths []string
	for p := range g.imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var b bytes.Buffer
	b.WriteString("// Code generated by TestExports (exports_test.go); DO NOT EDIT.\n\n")
	b.WriteString("package lab\n\nimport (\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString("\n\t\"fencelab/lab/internal/engine\"\n)\n\n")
	b.Write(g.body.Bytes())
	return format.Source(b.Bytes())
}

// comment is a doc comment as source, or nothing.
func comment(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range doc.List {
		b.WriteString(c.Text + "\n")
	}
	return b.String()
}

// trailing is a line comment after a constant, kept on its line.
func trailing(c *ast.CommentGroup) string {
	if c == nil {
		return ""
	}
	return " " + strings.TrimSuffix(comment(c), "\n")
}

func isPredeclared(name string) bool {
	return types.Universe.Lookup(name) != nil
}

// importName is the name a file refers to an import by when it gives
// none: the last element of its path, or the one before a major version
// ("math/rand/v2" is rand).
func importName(path string) string {
	parts := strings.Split(path, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = parts[len(parts)-2]
	}
	return name
}

// TestGenerateExportsRefuses feeds the generator engines it must refuse,
// and one whose signature names a versioned import.
func TestGenerateExportsRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, src, want string }{
		{"variable", "var Count = 1", "exported variable Count"},
		{"generic type", "type Box[T any] struct{ v T }", "generic type Box"},
		{"unexported type", "type box struct{}\n\nfunc Open() *box { return nil }", "unexported box"},
		{"versioned import", "import \"math/rand/v2\"\n\n// Pick draws.\nfunc Pick(r *rand.Rand) int { return r.IntN(2) }", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package engine\n\n"+c.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := generateExports(dir)
			switch {
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("generateExports(%q) = %v, want an error with %q", c.src, err, c.want)
			case c.want == "" && err != nil:
				t.Errorf("generateExports(%q) = %v", c.src, err)
			case c.want == "" && !bytes.Contains(got, []byte(`"math/rand/v2"`)):
				t.Errorf("generateExports(%q) imports no math/rand/v2:\n%s", c.src, got)
			}
		})
	}
}
