package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// The extra verdicts of tests listed in expected_failures.json.
const (
	XFail Status = "XFAIL" // failed for the listed reason: a known gap
	XPass Status = "XPASS" // listed but passed: the list is stale
)

// ExpectedFailure is one entry of expected_failures.json.
type ExpectedFailure struct {
	// Reason is the known gap, e.g. "views are not implemented".
	Reason string `json:"reason"`
	// ErrorContains must occur in the failure message for the failure to
	// count as this known gap; otherwise the test stays a FAIL.
	ErrorContains string `json:"errorContains"`
}

// ExpectedFailures maps "folder/file: test description" to its entry.
type ExpectedFailures struct {
	entries map[string]ExpectedFailure
	used    map[string]bool
}

// LoadExpectedFailures reads the list; a missing file is an empty list.
func LoadExpectedFailures(path string) (*ExpectedFailures, error) {
	ef := &ExpectedFailures{entries: map[string]ExpectedFailure{}, used: map[string]bool{}}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ef, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read expected failures: %w", err)
	}
	if err := json.Unmarshal(b, &ef.entries); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	for k, e := range ef.entries {
		if e.Reason == "" || e.ErrorContains == "" {
			return nil, fmt.Errorf("%s: entry %q needs reason and errorContains", path, k)
		}
	}
	return ef, nil
}

// Key is the list key of one test case.
func Key(file, test string) string { return file + ": " + test }

// Apply reclassifies the cases of one file: a listed FAIL with the listed
// error becomes XFAIL, a listed FAIL with another error stays FAIL (with
// both messages), a listed PASS becomes XPASS.
func (ef *ExpectedFailures) Apply(file string, cases []CaseResult) []CaseResult {
	out := make([]CaseResult, len(cases))
	for i, c := range cases {
		out[i] = c
		k := Key(file, c.Test)
		e, ok := ef.entries[k]
		if !ok {
			continue
		}
		ef.used[k] = true
		out[i] = e.classify(c)
	}
	return out
}

func (e ExpectedFailure) classify(c CaseResult) CaseResult {
	switch c.Status {
	case Pass:
		c.Status, c.Reason = XPass, "listed as expected failure ("+e.Reason+") but passed"
	case Fail:
		if strings.Contains(c.Reason, e.ErrorContains) {
			c.Status, c.Reason = XFail, e.Reason+": "+c.Reason
		} else {
			c.Reason = fmt.Sprintf("expected failure %q (error containing %q) failed differently: %s",
				e.Reason, e.ErrorContains, c.Reason)
		}
	}
	return c
}

// Unused lists the entries that matched no test case (stale keys).
func (ef *ExpectedFailures) Unused() []string {
	var out []string
	for k := range ef.entries {
		if !ef.used[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// merge adds other's entries (a topology's own list) to ef.
func (ef *ExpectedFailures) merge(other *ExpectedFailures) {
	for k, e := range other.entries {
		ef.entries[k] = e
	}
}
