package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stopTimeout bounds the wait after SIGTERM before SIGKILL.
const stopTimeout = 10 * time.Second

// serveArgs are the `relaydb serve` arguments of member m.
func serveArgs(s Spec, m *Member) []string {
	args := []string{"serve", "--replSet", s.Name, "--port", strconv.Itoa(m.Port),
		"--bind_ip", "127.0.0.1", "--dbpath", m.DBPath, "--logpath", m.LogPath, "--logappend"}
	args = append(args, s.Secrets.Args()...)
	args = append(args, cacheArgs(s, m)...) // cache.go
	args = append(args, s.ExtraArgs...)
	return append(args, s.MemberArgs[m.Name]...)
}

// spawn starts m's process with its recorded arguments and records its pid.
// The process's stdout and stderr go to DIR/<name>/stderr.log (startup
// errors before the log file is open land there).
func (c *Cluster) spawn(m *Member) error {
	if err := os.MkdirAll(m.DBPath, 0o755); err != nil {
		return fmt.Errorf("cluster: create %s: %w", m.DBPath, err)
	}
	out, err := os.OpenFile(filepath.Join(filepath.Dir(m.DBPath), "stderr.log"),
		os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cluster: open stderr log of %s: %w", m.Name, err)
	}
	defer out.Close()
	cmd := exec.Command(c.spec.Bin, m.Args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr(c.spec.DieWithParent)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cluster: start %s (%s): %w", m.Name, c.spec.Bin, err)
	}
	c.mu.Lock()
	m.PID = cmd.Process.Pid
	c.mu.Unlock()
	go func() { _ = cmd.Wait() }() // reap, so a dead member is not a zombie
	return nil
}

func sysProcAttr(dieWithParent bool) *syscall.SysProcAttr {
	if dieWithParent {
		return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	return &syscall.SysProcAttr{Setsid: true} // detached: outlives the command
}

// alive reports whether pid is a running (not zombie) process serving
// dbPath, so a recycled pid is not mistaken for the member.
func alive(pid int, dbPath string) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			// A zombie leader whose other threads are still exiting still
			// holds the process's files (its dbpath lock) until the last
			// one is gone.
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
			return err == nil && len(tasks) > 1
		}
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The cmdline reads empty while the process is still inside execve
	// (cmd.Start returns at exec's point of no return): that is our child.
	return len(cmdline) == 0 || strings.Contains(string(cmdline), dbPath)
}

// signalAndWait sends sig to m and waits (bounded by d) until it is gone.
func signalAndWait(ctx context.Context, m *Member, sig syscall.Signal, d time.Duration) error {
	if !alive(m.PID, m.DBPath) {
		return nil
	}
	if err := syscall.Kill(m.PID, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("cluster: signal %v to %s (pid %d): %w", sig, m.Name, m.PID, err)
	}
	deadline := time.Now().Add(d)
	for alive(m.PID, m.DBPath) {
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster: %s (pid %d) still running %v after %v", m.Name, m.PID, d, sig)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: waiting for %s to exit: %w", m.Name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// stop sends SIGTERM, waits up to stopTimeout, then SIGKILL.
func stop(ctx context.Context, m *Member) error {
	if err := signalAndWait(ctx, m, syscall.SIGTERM, stopTimeout); err == nil {
		return nil
	}
	return signalAndWait(ctx, m, syscall.SIGKILL, 5*time.Second)
}
