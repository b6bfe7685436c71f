// Package machine gathers the facts of the machine a benchmark runs on,
// so a reader can compare results between machines.
//
// Invariants: gathering never fails (a fact it cannot read is left
// empty) and only reads: /proc files, the binary's build info and, for
// the commit, read-only git commands.
package machine

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Facts are the facts every benchmark report records.
// A report embeds them: their JSON names are the reports'.
type Facts struct {
	Date      string `json:"date"` // RFC 3339, UTC
	Cores     int    `json:"cores"`
	CPUModel  string `json:"cpuModel,omitempty"`
	MemoryMB  int64  `json:"memoryMB,omitempty"`
	OS        string `json:"os"` // GOOS/GOARCH
	Kernel    string `json:"kernel,omitempty"`
	GoVersion string `json:"goVersion"`
}

// This gathers the facts of the machine it runs on, dated now.
func This(now time.Time) Facts {
	f := Facts{Date: now.UTC().Format(time.RFC3339), Cores: runtime.NumCPU(),
		CPUModel: procField("/proc/cpuinfo", "model name"), OS: runtime.GOOS + "/" + runtime.GOARCH,
		GoVersion: runtime.Version()}
	if kb := strings.Fields(procField("/proc/meminfo", "MemTotal")); len(kb) > 0 {
		n, _ := strconv.ParseInt(kb[0], 10, 64)
		f.MemoryMB = n / 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		f.Kernel = strings.TrimSpace(string(b))
	}
	return f
}

// Commit returns given unless it is "" or "unknown", else the revision
// stamped in the binary, else the checkout's (read-only); "-dirty" marks
// local changes. "" when none is known.
func Commit(given string) string {
	if given != "" && given != "unknown" {
		return given
	}
	if c := buildCommit(); c != "" {
		return c
	}
	return gitCommit()
}

// procField returns the value of the first "name : value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// buildCommit is the VCS revision the Go toolchain stamped into the binary.
func buildCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(12, len(rev))] + dirty
}

// gitCommit reads the checkout's commit (read-only), marking local changes.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "-dirty"
	}
	return c
}
