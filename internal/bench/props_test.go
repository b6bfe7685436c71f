package bench

import (
	"encoding/binary"
	"hash/fnv"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	in := `# comment
! also a comment
recordcount=1000
  operationcount = 2000
fieldlength:100
requestdistribution zipfian
mongodb.url=mongodb://h:1/db?w=1&journal=true
long=one \
     two
path=c\:\\dir\ttab\u0041
empty=
novalue
`
	got, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Properties{
		"recordcount":         "1000",
		"operationcount":      "2000",
		"fieldlength":         "100",
		"requestdistribution": "zipfian",
		"mongodb.url":         "mongodb://h:1/db?w=1&journal=true",
		"long":                "one two",
		"path":                "c:\\dir\ttabA",
		"empty":               "",
		"novalue":             "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestParsePropertiesBadEscape(t *testing.T) {
	if _, err := ParseProperties(strings.NewReader(`k=\u00zz`)); err == nil {
		t.Fatal("bad \\u escape accepted")
	}
}

func TestSetPairAndTypedGetters(t *testing.T) {
	p := Properties{}
	if err := p.SetPair("a=b=c"); err != nil || p["a"] != "b=c" {
		t.Fatalf("SetPair: %v %q", err, p["a"])
	}
	if err := p.SetPair("noequals"); err == nil {
		t.Fatal("pair without = accepted")
	}
	p["n"], p["f"], p["b"] = "12", "0.5", "TRUE"
	if n, err := p.Int64("n", 0); err != nil || n != 12 {
		t.Errorf("Int64 = %d, %v", n, err)
	}
	if _, err := p.Int64("f", 0); err == nil {
		t.Error("0.5 accepted as an integer")
	}
	if f, _ := p.Float("f", 0); f != 0.5 {
		t.Errorf("Float = %v", f)
	}
	if !p.Bool("b", false) || p.Bool("n", true) || !p.Bool("missing", true) {
		t.Error("Bool does not follow Boolean.parseBoolean")
	}
}

// TestPresetFilesMatch checks bench/workloads/workload[a-f] against the
// built-in presets, so -P file and -workload x run the same thing.
func TestPresetFilesMatch(t *testing.T) {
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		file, err := LoadPropertiesFile(filepath.Join("..", "..", "bench", "workloads", "workload"+name))
		if err != nil {
			t.Fatal(err)
		}
		pre, err := Preset("workload" + strings.ToUpper(name))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range append(file.Keys(), pre.Keys()...) {
			if !sameValue(file[k], pre[k]) {
				t.Errorf("workload%s: %s file=%q preset=%q", name, k, file[k], pre[k])
			}
		}
	}
	if _, err := Preset("g"); err == nil {
		t.Error("unknown preset accepted")
	}
}

// TestBuildKeyName computes expected keys independently: FNV-1a over the
// key number's eight little-endian bytes (hash/fnv), absolute value.
func TestBuildKeyName(t *testing.T) {
	hashed := func(n int64) string {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
		v := int64(h.Sum64())
		if v < 0 {
			v = -v
		}
		return "user" + strconv.FormatInt(v, 10)
	}
	for _, n := range []int64{0, 1, 42, 999, 123456789} {
		if got := BuildKeyName(n, 1, false); got != hashed(n) {
			t.Errorf("BuildKeyName(%d) = %s, want %s", n, got, hashed(n))
		}
	}
	cases := []struct {
		n       int64
		pad     int
		ordered bool
		want    string
	}{
		{0, 1, false, "user6284781860667377211"}, // YCSB's well-known first key
		{7, 1, true, "user7"},
		{7, 5, true, "user00007"},
		{12345, 3, true, "user12345"},
		{0, 20, false, "user06284781860667377211"},
	}
	for _, c := range cases {
		if got := BuildKeyName(c.n, c.pad, c.ordered); got != c.want {
			t.Errorf("BuildKeyName(%d, %d, %v) = %s, want %s", c.n, c.pad, c.ordered, got, c.want)
		}
	}
}

// sameValue compares numerically when both parse as numbers ("1" = "1.0").
func sameValue(a, b string) bool {
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return fa == fb
	}
	return a == b
}
