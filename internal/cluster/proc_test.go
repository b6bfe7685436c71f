package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeServe writes a shell script standing in for relaydb: it records its
// arguments and sleeps until killed, so process management can be tested
// without a server.
func fakeServe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fake-relaydb")
	script := "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/calls\"\nwhile :; do sleep 0.05; done\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// fakeCluster lays out and spawns the members of s with the fake binary.
func fakeCluster(t *testing.T, s Spec) *Cluster {
	t.Helper()
	s.Dir, s.Bin, s.DieWithParent = t.TempDir(), fakeServe(t), true
	s = s.withDefaults()
	members, err := layout(s)
	if err != nil {
		t.Fatal(err)
	}
	c := newCluster(s, members)
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	for _, m := range members {
		if err := c.spawn(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestServeArgs(t *testing.T) {
	s := Spec{Name: "lab", Dir: "/c", Data: 2, ExtraArgs: []string{"--oplogSize", "64"},
		MemberArgs: map[string][]string{"m1": {"--simulatedLatency", "1ms"}}}.withDefaults()
	fakeMemory(t, 8)
	base := "serve --replSet lab --port 3000%d --bind_ip 127.0.0.1 --dbpath /c/m%d/data --logpath /c/m%d/relaydb.log --logappend --cacheSizeMB 1792 --oplogSize 64"
	for i, extra := range []string{"", " --simulatedLatency 1ms"} {
		m := &Member{MemberSpec: MemberSpec{Name: fmt.Sprintf("m%d", i)}, Port: 30000 + i, DBPath: fmt.Sprintf("/c/m%d/data", i), LogPath: fmt.Sprintf("/c/m%d/relaydb.log", i)}
		got := strings.Join(serveArgs(s, m), " ")
		if want := fmt.Sprintf(base, i, i, i) + extra; got != want {
			t.Fatalf("serveArgs =\n %s\nwant\n %s", got, want)
		}
	}
}

func TestLayoutPorts(t *testing.T) {
	s := Spec{Dir: "/c", Data: 2, Arbiter: true}.withDefaults()
	ms, err := layout(s)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, m := range ms {
		if m.Port <= 0 || seen[m.Port] || m.Host != Host(m.Port) {
			t.Fatalf("member %s port %d host %s: want distinct loopback ports", m.Name, m.Port, m.Host)
		}
		seen[m.Port] = true
		if m.DBPath != filepath.Join("/c", m.Name, "data") {
			t.Errorf("%s dbpath %s", m.Name, m.DBPath)
		}
	}
	if ms[2].Role != RoleArbiter {
		t.Errorf("last member role %s, want arbiter", ms[2].Role)
	}
}

func TestProcessLifecycle(t *testing.T) {
	c := fakeCluster(t, Spec{Data: 2, ReadOnly: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, m := range c.Members() {
		if !c.Alive(m) {
			t.Fatalf("%s not alive after spawn (pid %d)", m.Name, m.PID)
		}
	}
	// Load sees the same members and pids.
	l, err := Load(c.Spec().Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Members()) != 3 || l.Members()[1].PID != c.Members()[1].PID || l.URI() != c.URI() {
		t.Fatalf("Load: members %+v uri %s, want the started ones and %s", l.Members(), l.URI(), c.URI())
	}
	if _, err := l.Kill(ctx, "m1"); err != nil {
		t.Fatal(err)
	}
	if c.Alive(c.Members()[1]) || !c.Alive(c.Members()[0]) {
		t.Fatalf("after kill m1: m0 alive=%v m1 alive=%v, want true/false", c.Alive(c.Members()[0]), c.Alive(c.Members()[1]))
	}
	if _, err := l.Kill(ctx, "m7"); err == nil || !strings.Contains(err.Error(), `no member "m7"`) {
		t.Fatalf("kill m7: %v, want no such member", err)
	}
	if _, err := l.Stop(ctx, "m0"); err != nil {
		t.Fatal(err)
	}
	if c.Alive(c.Members()[0]) {
		t.Fatal("m0 alive after Stop")
	}
	if err := l.Down(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Members() {
		if c.Alive(m) {
			t.Fatalf("%s alive after Down", m.Name)
		}
	}
}

func TestRespawnSameArgs(t *testing.T) {
	c := fakeCluster(t, Spec{Data: 1})
	m := c.Members()[0]
	first := m.PID
	calls := filepath.Join(filepath.Dir(c.Spec().Bin), "calls")
	waitCalls(t, calls, 1) // the script ran before it is stopped
	if err := stop(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if err := c.spawn(m); err != nil {
		t.Fatal(err)
	}
	if m.PID == first || !c.Alive(m) {
		t.Fatalf("respawn: pid %d (was %d) alive=%v", m.PID, first, c.Alive(m))
	}
	lines := waitCalls(t, calls, 2)
	if lines[0] != lines[1] || !strings.Contains(lines[0], "--replSet rs0") {
		t.Fatalf("serve calls %q, want the same replSet arguments twice", lines)
	}
}

func waitCalls(t *testing.T, path string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		lines := slices.DeleteFunc(strings.Split(string(b), "\n"), func(s string) bool { return s == "" })
		if len(lines) >= n || time.Now().After(deadline) {
			if len(lines) < n {
				t.Fatalf("%d calls recorded, want %d: %q", len(lines), n, b)
			}
			return lines
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLoadMissing(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "cluster up") {
		t.Fatalf("Load of an empty dir: %v, want a hint to run cluster up", err)
	}
}

func TestUpRejectsInvalid(t *testing.T) {
	_, err := Up(context.Background(), Spec{Dir: t.TempDir(), Data: 8})
	if err == nil || !strings.Contains(err.Error(), "voting members exceed") {
		t.Fatalf("Up with 8 voters: %v, want the voter limit error", err)
	}
}

func TestUpRefusesUsedDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "m1", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m1", "data", "MANIFEST"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Up(context.Background(), Spec{Dir: dir, Data: 3, Bin: "/nonexistent"})
	if err == nil || !strings.Contains(err.Error(), "already holds member data") {
		t.Fatalf("Up over old member data: %v, want a refusal", err)
	}
}
