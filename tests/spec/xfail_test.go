package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpectedFailuresApply(t *testing.T) {
	ef := &ExpectedFailures{used: map[string]bool{}, entries: map[string]ExpectedFailure{
		Key("f", "gap"):      {Reason: "views", ErrorContains: "does not support views"},
		Key("f", "fixed"):    {Reason: "views", ErrorContains: "does not support views"},
		Key("f", "other"):    {Reason: "views", ErrorContains: "does not support views"},
		Key("f", "skipped"):  {Reason: "views", ErrorContains: "does not support views"},
		Key("f", "not-here"): {Reason: "stale", ErrorContains: "x"},
	}}
	in := []CaseResult{
		{Test: "gap", Status: Fail, Reason: "(NotImplemented) relaydb does not support views yet"},
		{Test: "fixed", Status: Pass},
		{Test: "other", Status: Fail, Reason: "expectResult: at $: expected 1"},
		{Test: "skipped", Status: Skip},
		{Test: "unlisted", Status: Fail, Reason: "boom"},
	}
	want := []Status{XFail, XPass, Fail, Skip, Fail}
	got := ef.Apply("f", in)
	for i, c := range got {
		if c.Status != want[i] {
			t.Errorf("%s: status %s, want %s (%s)", c.Test, c.Status, want[i], c.Reason)
		}
	}
	if !strings.Contains(got[0].Reason, "views: ") || !strings.Contains(got[0].Reason, "does not support views") {
		t.Errorf("XFAIL reason %q lacks reason or actual error", got[0].Reason)
	}
	if !strings.Contains(got[2].Reason, "failed differently") || !strings.Contains(got[2].Reason, "expected 1") {
		t.Errorf("different failure reason %q lacks the actual error", got[2].Reason)
	}
	if u := ef.Unused(); len(u) != 1 || u[0] != Key("f", "not-here") {
		t.Errorf("Unused = %v", u)
	}
	rep := NewFileReport("f", got)
	if rep.XFail != 1 || rep.XPass != 1 || rep.Fail != 2 || rep.Skip != 1 || rep.Pass != 0 {
		t.Errorf("counts %+v", rep)
	}
}

func TestLoadExpectedFailures(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"f: t": {"reason": "r"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadExpectedFailures(bad); err == nil {
		t.Error("entry without errorContains accepted")
	}
	ef, err := LoadExpectedFailures(filepath.Join(dir, "missing.json"))
	if err != nil || len(ef.entries) != 0 {
		t.Errorf("missing file: %v, %d entries", err, len(ef.entries))
	}
	ef, err = LoadExpectedFailures("expected_failures.json")
	if err != nil || len(ef.entries) == 0 {
		t.Fatalf("repository list: %v, %d entries", err, len(ef.entries))
	}
}
