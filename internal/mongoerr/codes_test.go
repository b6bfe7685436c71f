package mongoerr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// knownInlineCodes lists "path:line" sites still allowed to spell a code as
// an integer literal. Keep it empty: add a named constant instead.
var knownInlineCodes = map[string]bool{}

// TestNoInlineCodes keeps issue #10's rule true: outside this package, no
// non-test file under internal/ passes an integer literal as the code to
// mongoerr.New/Newf/Wrap, converts one to mongoerr.Code, or declares a
// mongoerr.Code value (const, var or composite literal) from one.
//
// TODO(#10): helpers that take a mongoerr.Code parameter (agg/expr errf,
// numericArg, arrays, arrayInput; query codeErr; agg splitFieldPath) are still
// called with untyped integer literals; this syntactic check cannot see those.
func TestNoInlineCodes(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || filepath.Base(path) == "mongoerr" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		report := func(n ast.Node, what string) {
			pos := fset.Position(n.Pos())
			key := filepath.ToSlash(pos.Filename) + ":" + strconv.Itoa(pos.Line)
			if !knownInlineCodes[key] {
				bad = append(bad, key+": "+what)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := isMongoerr(n.Fun); ok && len(n.Args) > 0 {
					switch sel {
					case "New", "Newf", "Wrap", "Code":
						if hasIntLit(n.Args[0]) {
							report(n, "integer literal passed to mongoerr."+sel)
						}
					}
				}
			case *ast.ValueSpec:
				if mentionsCode(n.Type) {
					for _, v := range n.Values {
						if hasIntLit(v) {
							report(v, "mongoerr.Code declared from an integer literal")
						}
					}
				}
			case *ast.CompositeLit:
				if mentionsCode(n.Type) {
					for _, e := range n.Elts {
						if hasIntLit(e) {
							report(e, "integer literal in a mongoerr.Code composite literal")
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("%s: use a named constant from internal/mongoerr", b)
	}
}

// isMongoerr reports whether e is mongoerr.<Sel> and returns Sel.
func isMongoerr(e ast.Expr) (string, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || x.Name != "mongoerr" {
		return "", false
	}
	return sel.Sel.Name, true
}

func mentionsCode(e ast.Expr) bool {
	found := false
	if e == nil {
		return false
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok {
			if sel, ok := isMongoerr(x); ok && sel == "Code" {
				found = true
			}
		}
		return !found
	})
	return found
}

func hasIntLit(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind == token.INT {
				found = true
			}
		case *ast.CallExpr, *ast.IndexExpr, *ast.FuncLit:
			// len(x)+1, codes[0]: an index or argument is not a code.
			return n == ast.Node(e)
		}
		return !found
	})
	return found
}
