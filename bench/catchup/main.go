// Command catchup waits until a replica-set member has applied through
// its primary's last oplog entry and prints, as JSON, how long that took
// since -since (unix seconds, e.g. taken just before the member was
// restarted) and the member process's CPU seconds (user+system, from
// /proc/PID/stat) at that moment. bench/ab-catchup.sh drives it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
)

func main() {
	primary := flag.String("primary", "", "primary host:port")
	member := flag.String("member", "", "member host:port")
	pid := flag.Int("pid", 0, "member process id (for its CPU time)")
	since := flag.Float64("since", 0, "start time, unix seconds")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after")
	flag.Parse()
	if err := run(*primary, *member, *pid, *since, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "catchup:", err)
		os.Exit(1)
	}
}

func run(primary, member string, pid int, since float64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	top, err := selfOpTime(ctx, primary)
	if err != nil {
		return fmt.Errorf("primary %s: %w", primary, err)
	}
	for {
		got, err := selfOpTime(ctx, member)
		if err == nil && !got.Before(top) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("member %s at %v, primary at %v: %w", member, got, top, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	took := float64(time.Now().UnixNano())/1e9 - since
	cpu, err := procCPU(pid)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"catchupSec": took, "memberCpuSec": cpu,
		"primaryTop": fmt.Sprintf("%d:%d", top.T, top.I)})
}

// selfOpTime returns the ts of the last entry host applied
// (replSetGetStatus, the member marked self).
func selfOpTime(ctx context.Context, host string) (bson.Timestamp, error) {
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + host + "/?directConnection=true").
		SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		return bson.Timestamp{}, err
	}
	defer cl.Disconnect(context.Background())
	return cluster.SelfOpTime(ctx, cl)
}

// procCPU returns pid's user+system CPU seconds.
func procCPU(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	return (ut + st) / 100, nil // USER_HZ
}
