package mongosh

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestShellAuthTLS: mongosh logs in with the connection string `relaydb
// cluster up --auth --tls` prints (credentials, CA, client certificate)
// unchanged, writes with w:majority, creates a user with db.createUser,
// and that user logs in with db.auth; without credentials a write is
// refused with Unauthorized (13).
func TestShellAuthTLS(t *testing.T) {
	shell := mongoshPath(t)
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Up(ctxT(t), cluster.Spec{Dir: t.TempDir(), Data: 3, Auth: true, TLS: true, Bin: bin,
		DieWithParent: true, PrimaryTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Down(ctxT(t)) })
	script := `
const app = db.getSiblingDB("app");
const w = app.c.insertOne({x: 1}, {writeConcern: {w: "majority"}});
db.getSiblingDB("app").createUser({user: "reader", pwd: "reader-pwd", roles: [{role: "read", db: "app"}]});
const who = db.getSiblingDB("admin").runCommand({connectionStatus: 1}).authInfo.authenticatedUsers;
const other = db.getSiblingDB("app");
other.logout();
other.auth("reader", "reader-pwd");
let denied = 0;
try { other.c.insertOne({x: 2}); } catch (e) { denied = e.code; }
emit({acked: w.acknowledged, who: who, found: other.c.countDocuments({}), denied: denied});`
	res := obj(t, shellJSON(t, shell, c.URI(), script), "result")
	if res["acked"] != true || num(t, res["found"], "found") != 1 || num(t, res["denied"], "denied") != 13 {
		t.Errorf("mongosh as admin, then as a read user: %v", res)
	}
	if who := arr(t, res["who"], "who"); len(who) != 1 || obj(t, who[0], "user")["user"] != cluster.AdminUser {
		t.Errorf("authenticated users %v", res["who"])
	}
	u, _ := url.Parse(c.URI())
	u.User = nil
	anon := shellJSON(t, shell, u.String(), `let code = 0;
try { db.getSiblingDB("app").c.insertOne({x: 3}); } catch (e) { code = e.code; }
emit({code: code});`)
	if got := num(t, obj(t, anon, "anonymous")["code"], "code"); got != 13 {
		t.Errorf("mongosh without credentials: code %d, want 13", got)
	}
	if !strings.Contains(c.URI(), "tls=true") {
		t.Errorf("URI %s does not ask for TLS", c.URI())
	}
}
