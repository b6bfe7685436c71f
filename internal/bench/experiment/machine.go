package experiment

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

// Machine is what a reader needs to compare results between machines.
type Machine struct {
	Date      string `json:"date"`
	Cores     int    `json:"cores"`
	CPUModel  string `json:"cpuModel,omitempty"`
	MemoryMB  int64  `json:"memoryMB,omitempty"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel,omitempty"`
	GoVersion string `json:"goVersion"`
	Commit    string `json:"commit,omitempty"`
}

// ThisMachine gathers the facts of the machine the experiment runs on;
// commit is the binary's commit when known ("" = the build's VCS stamp,
// then git).
func ThisMachine(commit string, now time.Time) Machine {
	m := Machine{Date: now.UTC().Format(time.RFC3339), Cores: runtime.NumCPU(),
		CPUModel: procField("/proc/cpuinfo", "model name"), OS: runtime.GOOS + "/" + runtime.GOARCH,
		GoVersion: runtime.Version(), Commit: commit}
	if kb := strings.Fields(procField("/proc/meminfo", "MemTotal")); len(kb) > 0 {
		n, _ := strconv.ParseInt(kb[0], 10, 64)
		m.MemoryMB = n / 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if m.Commit == "" || m.Commit == "unknown" {
		m.Commit = vcsCommit()
	}
	return m
}

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

// vcsCommit is the revision stamped in the binary, else git's (read-only).
func vcsCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", ""
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "-dirty"
			}
		}
		if rev != "" {
			return rev[:min(12, len(rev))] + dirty
		}
	}
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
