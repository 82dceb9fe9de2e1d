package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMapNamesEveryPackage: the map at the top of code.md names every
// package of the module (each directory with Go files, as go list ./...
// sees them) and no directory that is gone.
func TestMapNamesEveryPackage(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("code.md")
	if err != nil {
		t.Fatal(err)
	}
	named := mapped(string(b))
	if len(named) == 0 {
		t.Fatal("code.md has no map (a code block of directories, each ending in /)")
	}
	have := packages(t, "..")
	for _, dir := range have {
		if !slices.Contains(named, dir) {
			t.Errorf("code.md's map does not name %s/: add its line", dir)
		}
	}
	for _, dir := range named {
		if !slices.Contains(have, dir) {
			t.Errorf("code.md's map names %s/, which is no package", dir)
		}
	}
}

// TestMapProblemsFound: the map's reader finds the directories of the
// first code block only, not its continuation lines.
func TestMapProblemsFound(t *testing.T) {
	t.Parallel()
	page := "# Where\n\n```\ncmd/x/    main\nlab/      the engine;\n          more/ words\nlab/a/b/  deep\n```\n\n```\nnot/ this\n```\n"
	if got, want := mapped(page), []string{"cmd/x", "lab", "lab/a/b"}; !slices.Equal(got, want) {
		t.Errorf("mapped = %q, want %q", got, want)
	}
}

// mapped is the directories the first code block of a page begins its
// lines with.
func mapped(page string) []string {
	_, block, ok := strings.Cut(page, "\n```\n")
	if !ok {
		return nil
	}
	block, _, _ = strings.Cut(block, "\n```")
	var dirs []string
	for _, line := range strings.Split(block, "\n") {
		first, _, _ := strings.Cut(line, " ")
		if dir, ok := strings.CutSuffix(first, "/"); ok && dir != "" {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// packages is every directory beneath root with a Go file, as go list
// ./... would list them: testdata and directories starting with . or _
// left out.
func packages(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			if dir = filepath.ToSlash(dir); dir != "." && !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
