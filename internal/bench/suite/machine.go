package suite

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Machine is what a reader needs to compare results between machines.
type Machine struct {
	Date          string `json:"date"`
	Cores         int    `json:"cores"`
	CPUModel      string `json:"cpuModel,omitempty"`
	MemoryMB      int64  `json:"memoryMB,omitempty"`
	OS            string `json:"os"`
	Kernel        string `json:"kernel,omitempty"`
	GoVersion     string `json:"goVersion"`
	GitCommit     string `json:"gitCommit,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	Target        string `json:"target"`
}

// machineFacts gathers the facts of this machine and the target server.
func machineFacts(ctx context.Context, uri, commit string, now time.Time) Machine {
	m := Machine{
		Date:      now.UTC().Format(time.RFC3339),
		Cores:     runtime.NumCPU(),
		CPUModel:  procField("/proc/cpuinfo", "model name"),
		OS:        runtime.GOOS + "/" + runtime.GOARCH,
		GoVersion: runtime.Version(),
		GitCommit: commit,
		Target:    redact(uri),
	}
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		n, _ := strconv.ParseInt(strings.Fields(kb)[0], 10, 64)
		m.MemoryMB = n / 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if m.GitCommit == "" || m.GitCommit == "unknown" {
		m.GitCommit = buildCommit()
	}
	if m.GitCommit == "" {
		m.GitCommit = gitCommit()
	}
	m.ServerVersion = serverVersion(ctx, uri)
	return m
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
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
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

func serverVersion(ctx context.Context, uri string) string {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return ""
	}
	defer cl.Disconnect(context.Background())
	var bi struct {
		Version string `bson:"version"`
	}
	if cl.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi) != nil {
		return ""
	}
	return bi.Version
}

// redact drops a password from a mongodb:// URI.
func redact(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	creds, host, ok := strings.Cut(rest, "@")
	if !ok {
		return uri
	}
	user, _, _ := strings.Cut(creds, ":")
	return scheme + "://" + user + ":***@" + host
}
