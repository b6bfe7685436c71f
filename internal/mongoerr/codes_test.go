package mongoerr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNames pins the codeName clients see for a handful of codes: MongoDB's
// name for codes error_codes.yml names, Location<code> for location codes.
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		code Code
		num  int32
		name string
	}{
		{InternalError, 1, "InternalError"},
		{BadValue, 2, "BadValue"},
		{UnknownReplWriteConcern, 79, "UnknownReplWriteConcern"},
		{UnsatisfiableWriteConcern, 100, "UnsatisfiableWriteConcern"},
		{CannotIndexParallelArrays, 171, "CannotIndexParallelArrays"},
		{IllegalOpMsgFlag, 223, "IllegalOpMsgFlag"},
		{ChecksumMismatch, 288, "ChecksumMismatch"},
		{QueryExceededMemoryLimitNoDiskUseAllowed, 292, "QueryExceededMemoryLimitNoDiskUseAllowed"},
		{DuplicateKey, 11000, "DuplicateKey"},
		{MergeStageNoMatchingDocument, 13113, "MergeStageNoMatchingDocument"},
		{ClientMarkedKilled, 46841, "ClientMarkedKilled"},
		// Location codes: no entry in names.
		{SortKeyNotObject, 15973, "Location15973"},
		{ReplacementNotObject, 40228, "Location40228"},
		{IDLMissingField, 40414, "Location40414"},
		{IDLUnknownField, 40415, "Location40415"},
		{IDLNegativeValue, 51024, "Location51024"},
		{OpMsgMissingBody, 40587, "Location40587"},
		{FacetOutputTooLarge, 4031700, "Location4031700"},
		{ClientMetadataImmutable, 186, "Location186"},
		{UnsupportedOpQueryCommand, 352, "Location352"},
	} {
		if int32(tc.code) != tc.num {
			t.Errorf("%s = %d, want %d", tc.name, tc.code, tc.num)
		}
		if got := tc.code.Name(); got != tc.name {
			t.Errorf("Code(%d).Name() = %q, want %q", tc.num, got, tc.name)
		}
	}
}

// TestNamesDistinct: no two codes share a codeName.
func TestNamesDistinct(t *testing.T) {
	seen := map[string]Code{}
	for c, n := range names {
		if o, ok := seen[n]; ok {
			t.Errorf("codeName %q used for %d and %d", n, o, c)
		}
		seen[n] = c
	}
}

// TestCodesDistinct: one name per number, and location codes (locations.go)
// stay out of names so clients see Location<code> for them.
func TestCodesDistinct(t *testing.T) {
	fset := token.NewFileSet()
	byNum := map[int64]string{}
	for _, file := range []string{"codes.go", "locations.go", "mongoerr.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for i, name := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.INT {
						t.Errorf("%s: %s is not an integer literal", file, name.Name)
						continue
					}
					n, err := strconv.ParseInt(lit.Value, 0, 32)
					if err != nil {
						t.Fatal(err)
					}
					if o, dup := byNum[n]; dup {
						t.Errorf("%d is both %s and %s", n, o, name.Name)
					}
					byNum[n] = name.Name
					if _, named := names[Code(n)]; named && file == "locations.go" {
						t.Errorf("location code %s (%d) is in names", name.Name, n)
					}
				}
			}
		}
	}
	if len(byNum) < 200 {
		t.Fatalf("found only %d codes", len(byNum))
	}
}

// knownInlineCodes lists sites still allowed to spell a mongoerr.Code as an
// integer constant, keyed "path: expression" (path relative to the module
// root, expression as written). Keep it empty: add a named constant instead.
var knownInlineCodes = map[string]bool{}

// TestNoInlineCodes keeps issue #10's rule true: outside this package, no
// non-test file under internal/ or cmd/ spells a mongoerr.Code as an integer
// constant. It type-checks those packages (go/types, with dependencies
// imported from the export data `go list -export` reports) and flags every
// constant expression whose type is mongoerr.Code unless it names a constant
// declared with type mongoerr.Code: a literal passed to a Code parameter
// (mongoerr.New, errf, codeErr, ...), assigned, returned, compared, used as
// a case or composite-literal element, mongoerr.Code(5), BadValue+1, or an
// untyped constant from another package all count.
func TestNoInlineCodes(t *testing.T) {
	const mod = "github.com/relaydb/relaydb"
	pkgs := goList(t, mod+"/internal/...", mod+"/cmd/...")

	exports := map[string]string{}
	for _, p := range pkgs {
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(f)
	})
	me, err := imp.Import(mod + "/internal/mongoerr")
	if err != nil {
		t.Fatal(err)
	}
	code := me.Scope().Lookup("Code").Type()
	root := filepath.Dir(filepath.Dir(mustAbs(t, ".")))

	var bad []string
	checked := 0
	for _, p := range pkgs {
		if p.DepOnly || p.ImportPath == me.Path() || p.Module == nil || p.Module.Path != mod {
			continue
		}
		var files []*ast.File
		for _, name := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{},
			Uses:  map[*ast.Ident]types.Object{},
		}
		conf := types.Config{Importer: imp, FakeImportC: true}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		checked++
		// named reports whether e names a constant declared as a mongoerr.Code.
		named := func(e ast.Expr) bool {
			var id *ast.Ident
			switch x := ast.Unparen(e).(type) {
			case *ast.Ident:
				id = x
			case *ast.SelectorExpr:
				id = x.Sel
			default:
				return false
			}
			c, ok := info.Uses[id].(*types.Const)
			return ok && types.Identical(c.Type(), code)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				e, ok := n.(ast.Expr)
				if !ok {
					return true
				}
				tv, ok := info.Types[e]
				if !ok || tv.Value == nil || !types.Identical(tv.Type, code) {
					return true
				}
				if !named(e) {
					pos := fset.Position(e.Pos())
					rel, err := filepath.Rel(root, pos.Filename)
					if err != nil {
						rel = pos.Filename
					}
					rel = filepath.ToSlash(rel)
					var src strings.Builder
					printer.Fprint(&src, fset, e)
					if !knownInlineCodes[rel+": "+src.String()] {
						bad = append(bad, fmt.Sprintf("%s:%d: %s is an integer constant used as a mongoerr.Code", rel, pos.Line, src.String()))
					}
				}
				return false
			})
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d packages; is go list finding the module?", checked)
	}
	for _, b := range bad {
		t.Errorf("%s: use a named constant from internal/mongoerr", b)
	}
}

type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	CgoFiles   []string
	DepOnly    bool
	Module     *struct{ Path string }
}

// goList runs `go list -deps -export` on patterns: the packages and, with
// DepOnly set, everything they import, each with its compiled export data.
func goList(t *testing.T, patterns ...string) []listedPackage {
	t.Helper()
	args := append([]string{"list", "-deps", "-export", "-json=ImportPath,Dir,Export,GoFiles,CgoFiles,DepOnly,Module"}, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
