package machine

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestThis(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	f := This(now)
	if f.Date != "2026-01-02T02:04:05Z" || f.Cores != runtime.NumCPU() ||
		f.OS != runtime.GOOS+"/"+runtime.GOARCH || f.GoVersion != runtime.Version() {
		t.Fatalf("This = %+v", f)
	}
}

func TestCommit(t *testing.T) {
	if got := Commit("abc123"); got != "abc123" {
		t.Fatalf("Commit(given) = %q", got)
	}
	// "" and "unknown" fall back to the build stamp or git, which agree.
	if a, b := Commit(""), Commit("unknown"); a != b {
		t.Fatalf("Commit(\"\") = %q, Commit(\"unknown\") = %q", a, b)
	}
}

func TestProcField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	body := "processor\t: 0\nmodel name\t: Test CPU @ 2GHz\nMemTotal:  4096 kB\nmodel name\t: second\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, name, want string }{
		{path, "model name", "Test CPU @ 2GHz"}, // the first match
		{path, "MemTotal", "4096 kB"},
		{path, "flags", ""},
		{filepath.Join(t.TempDir(), "missing"), "model name", ""},
	}
	for _, tt := range tests {
		if got := procField(tt.path, tt.name); got != tt.want {
			t.Errorf("procField(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
