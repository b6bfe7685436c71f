package sharding

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// A secured sharded cluster for the router's auth tests: every process
// (config server, shards, routers) holds one key file. The sets are
// initiated as __system@local (the key is its password), so the config
// servers hold no user and the router's localhost exception is open.

// writeKeyFile writes a random key with mode 0600 and returns its path
// and the key.
func writeKeyFile(t *testing.T) (string, string) {
	t.Helper()
	b := make([]byte, 48)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	key := base64.StdEncoding.EncodeToString(b)
	path := filepath.Join(t.TempDir(), "keyfile")
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, key
}

// startKeyedSet starts a one-member replica set (role "--configsvr" or
// "--shardsvr") with the key file, initiates it as __system and waits for
// its primary; the process is killed by t.Cleanup. It returns the host.
func startKeyedSet(t *testing.T, name, role, keyFile, key string) string {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	host := fmt.Sprintf("127.0.0.1:%d", port)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "member.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--replSet", name, role, "--keyFile", keyFile, "--port", fmt.Sprint(port),
		"--bind_ip", "127.0.0.1", "--dbpath", filepath.Join(dir, "data"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 3000 {
				b = b[len(b)-3000:]
			}
			t.Logf("%s log tail:\n%s", name, b)
		}
	})
	cl := systemClient(t, host, key)
	initiate := bson.D{{Key: "replSetInitiate", Value: bson.D{{Key: "_id", Value: name}, {Key: "version", Value: int32(1)},
		{Key: "members", Value: bson.A{bson.D{{Key: "_id", Value: int32(0)}, {Key: "host", Value: host}}}}}}}
	waitFor(t, 30*time.Second, name+" initiated", func(ctx context.Context) error {
		err := cl.Database("admin").RunCommand(ctx, initiate).Err()
		if err != nil && cmdCode(err) != 23 { // AlreadyInitialized
			return err
		}
		return nil
	})
	waitFor(t, 30*time.Second, name+" primary", func(ctx context.Context) error {
		var h bson.M
		if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h); err != nil {
			return err
		}
		if h["isWritablePrimary"] != true {
			return fmt.Errorf("not primary yet: %v", h["isWritablePrimary"])
		}
		return nil
	})
	return host
}

// systemClient is a direct client logged in as __system@local.
func systemClient(t *testing.T, host, key string) *mongo.Client {
	t.Helper()
	cred := options.Credential{AuthMechanism: "SCRAM-SHA-256", AuthSource: "local", Username: "__system", Password: key}
	cl, err := mongo.Connect(options.Client().SetHosts([]string{host}).SetDirect(true).SetAuth(cred).
		SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

// routerClient connects to a router, as user (authSource db) when user
// is not empty.
func routerClient(t *testing.T, r *harness.Router, user, pwd, db string) *mongo.Client {
	t.Helper()
	opts := options.Client().ApplyURI(r.URI()).SetServerSelectionTimeout(5 * time.Second).SetRetryWrites(false)
	if user != "" {
		opts.SetAuth(options.Credential{Username: user, Password: pwd, AuthSource: db})
	}
	cl, err := mongo.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

// waitFor retries f (each try bounded) until it succeeds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, f func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := f(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// cmdCode is a command error's code (0 for none or another error).
func cmdCode(err error) int {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	var we mongo.WriteException
	if errors.As(err, &we) {
		if len(we.WriteErrors) > 0 {
			return we.WriteErrors[0].Code
		}
		if we.WriteConcernError != nil {
			return we.WriteConcernError.Code
		}
	}
	return 0
}
