package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FileReport is the verdicts of one file.
type FileReport struct {
	File  string       `json:"file"`
	Pass  int          `json:"pass"`
	Fail  int          `json:"fail"`
	Skip  int          `json:"skip"`
	XFail int          `json:"xfail"`
	XPass int          `json:"xpass"`
	Cases []CaseResult `json:"cases"`
}

// FolderReport sums the files of one folder.
type FolderReport struct {
	Folder string       `json:"folder"`
	Pass   int          `json:"pass"`
	Fail   int          `json:"fail"`
	Skip   int          `json:"skip"`
	XFail  int          `json:"xfail"`
	XPass  int          `json:"xpass"`
	Files  []FileReport `json:"files"`
}

// Summary is the whole run, written as JSON.
type Summary struct {
	ServerVersion string         `json:"serverVersion"`
	Pass          int            `json:"pass"`
	Fail          int            `json:"fail"`
	Skip          int            `json:"skip"`
	XFail         int            `json:"xfail"`
	XPass         int            `json:"xpass"`
	Folders       []FolderReport `json:"folders"`
}

// NewFileReport counts the verdicts of cases.
func NewFileReport(file string, cases []CaseResult) FileReport {
	fr := FileReport{File: file, Cases: cases}
	for _, c := range cases {
		switch c.Status {
		case Pass:
			fr.Pass++
		case Fail:
			fr.Fail++
		case Skip:
			fr.Skip++
		case XFail:
			fr.XFail++
		case XPass:
			fr.XPass++
		}
	}
	return fr
}

// Add appends a file to the folder's totals.
func (f *FolderReport) Add(fr FileReport) {
	f.Files = append(f.Files, fr)
	f.Pass += fr.Pass
	f.Fail += fr.Fail
	f.Skip += fr.Skip
	f.XFail += fr.XFail
	f.XPass += fr.XPass
}

// Add appends a folder to the summary's totals.
func (s *Summary) Add(f FolderReport) {
	s.Folders = append(s.Folders, f)
	s.Pass += f.Pass
	s.Fail += f.Fail
	s.Skip += f.Skip
	s.XFail += f.XFail
	s.XPass += f.XPass
}

// Counts renders the verdict counts of one line of the report.
func Counts(pass, fail, xfail, xpass, skip int) string {
	return fmt.Sprintf("PASS %4d  FAIL %4d  XFAIL %3d  XPASS %3d  SKIP %4d", pass, fail, xfail, xpass, skip)
}

// Lines renders a file report: a count line, then one line per FAIL,
// XFAIL and XPASS.
func (fr FileReport) Lines() []string {
	lines := []string{fmt.Sprintf("%-60s %s", fr.File, Counts(fr.Pass, fr.Fail, fr.XFail, fr.XPass, fr.Skip))}
	for _, c := range fr.Cases {
		if c.Status == Fail || c.Status == XFail || c.Status == XPass {
			lines = append(lines, fmt.Sprintf("    %s %q: %s", c.Status, c.Test, oneLine(c.Reason, 300)))
		}
	}
	return lines
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// ResultsPath is $RELAYDB_SPEC_RESULTS or a file in the temp dir.
func ResultsPath() string {
	if p := os.Getenv("RELAYDB_SPEC_RESULTS"); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "relaydb-spec-results.json")
}

// Write stores the summary as indented JSON.
func (s *Summary) Write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// LoadFloors reads floor.json: folder -> minimum pass count.
func LoadFloors(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read floors: %w", err)
	}
	floors := map[string]int{}
	if err := json.Unmarshal(b, &floors); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return floors, nil
}

// BelowFloor lists the folders whose pass count dropped under the floor.
func (s *Summary) BelowFloor(floors map[string]int) []string {
	var out []string
	for _, f := range s.Folders {
		if min := floors[f.Folder]; f.Pass < min {
			out = append(out, fmt.Sprintf("%s: %d passed, floor is %d", f.Folder, f.Pass, min))
		}
	}
	return out
}
