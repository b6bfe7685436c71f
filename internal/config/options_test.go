package config

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// optionCase is how one flag or YAML key shows: with args (or yaml), the
// configuration differs from the one with base alone (an effect), or
// parsing fails with an error containing errSub (a clear error), or a
// warning containing warnSub is recorded (accepted and ignored, said so).
type optionCase struct {
	args, base      []string
	errSub, warnSub string
}

var (
	tlsBase   = []string{"--tlsMode=requireTLS", "--tlsCertificateKeyFile=/c.pem", "--tlsCAFile=/ca0.pem"}
	allowBase = []string{"--tlsMode=allowTLS", "--tlsCertificateKeyFile=/c.pem", "--tlsCAFile=/ca0.pem"}
)

// serveFlagCases names every flag of relaydb serve (TestEveryServeFlag
// fails on a flag missing here, so a new flag must say what it does).
var serveFlagCases = map[string]optionCase{
	"auth":                                   {args: []string{"--auth"}},
	"bind_ip":                                {args: []string{"--bind_ip=10.0.0.1"}},
	"bind_ip_all":                            {args: []string{"--bind_ip_all"}},
	"cacheSizeMB":                            {args: []string{"--cacheSizeMB=512"}},
	"clusterAuthMode":                        {args: []string{"--clusterAuthMode=x509"}, base: tlsBase},
	"config":                                 {args: []string{"--config=CONFIG"}},
	"configsvr":                              {args: []string{"--configsvr"}, base: []string{"--replSet=c"}},
	"dbpath":                                 {args: []string{"--dbpath=/d"}},
	"inMemory":                               {args: []string{"--inMemory"}},
	"ipAllowlist":                            {args: []string{"--ipAllowlist=10.0.0.0/8"}},
	"ipAllowlistAlwaysAllowMembers":          {args: []string{"--ipAllowlistAlwaysAllowMembers=false"}, base: []string{"--ipAllowlist=10.0.0.0/8"}},
	"journalCommitInterval":                  {args: []string{"--journalCommitInterval=20"}},
	"keyFile":                                {args: []string{"--keyFile=/k"}},
	"logappend":                              {args: []string{"--logappend"}},
	"logpath":                                {args: []string{"--logpath=/l"}},
	"maxConns":                               {args: []string{"--maxConns=10"}},
	"metricsPort":                            {args: []string{"--metricsPort=9216"}},
	"noscripting":                            {args: []string{"--noscripting"}},
	"oplogSize":                              {args: []string{"--oplogSize=64"}},
	"port":                                   {args: []string{"--port=28000"}},
	"replSet":                                {args: []string{"--replSet=rs1"}},
	"setParameter":                           {args: []string{"--setParameter=ttlMonitorSleepSecs=5"}},
	"shardsvr":                               {args: []string{"--shardsvr"}, base: []string{"--replSet=s"}},
	"simulatedLatency":                       {args: []string{"--simulatedLatency=50us"}},
	"simulatedLatencyTo":                     {args: []string{"--simulatedLatencyTo=h:1=1ms"}},
	"ssl":                                    {args: []string{"--ssl"}, errSub: "--ssl is not supported: use --tls"},
	"sslAllowConnectionsWithoutCertificates": {args: []string{"--sslAllowConnectionsWithoutCertificates"}, errSub: "--sslAllowConnectionsWithoutCertificates is not supported: use --tls"},
	"sslAllowInvalidCertificates":            {args: []string{"--sslAllowInvalidCertificates"}, errSub: "--sslAllowInvalidCertificates is not supported: use --tls"},
	"sslAllowInvalidHostnames":               {args: []string{"--sslAllowInvalidHostnames"}, errSub: "--sslAllowInvalidHostnames is not supported: use --tls"},
	"sslCAFile":                              {args: []string{"--sslCAFile=/ca.pem"}, errSub: "--sslCAFile is not supported: use --tls"},
	"sslClusterCAFile":                       {args: []string{"--sslClusterCAFile=/ca2.pem"}, errSub: "--sslClusterCAFile is not supported: use --tls"},
	"sslClusterFile":                         {args: []string{"--sslClusterFile=/m.pem"}, errSub: "--sslClusterFile is not supported: use --tls"},
	"sslDisabledProtocols":                   {args: []string{"--sslDisabledProtocols=TLS1_0"}, errSub: "--sslDisabledProtocols is not supported: use --tls"},
	"sslMode":                                {args: []string{"--sslMode=requireSSL"}, errSub: "--sslMode is not supported: use --tls"},
	"sslPEMKeyFile":                          {args: []string{"--sslPEMKeyFile=/p.pem"}, errSub: "--sslPEMKeyFile is not supported: use --tls"},
	"sslPEMKeyPassword":                      {args: []string{"--sslPEMKeyPassword=pw"}, errSub: "--sslPEMKeyPassword is not supported: use --tls"},
	"tlsAllowConnectionsWithoutCertificates": {args: []string{"--tlsAllowConnectionsWithoutCertificates"}, base: tlsBase},
	"tlsAllowInvalidCertificates":            {args: []string{"--tlsAllowInvalidCertificates"}, base: tlsBase},
	"tlsAllowInvalidHostnames":               {args: []string{"--tlsAllowInvalidHostnames"}, base: tlsBase},
	"tlsCAFile":                              {args: []string{"--tlsCAFile=/ca.pem"}, base: tlsBase},
	"tlsCertificateKeyFile":                  {args: []string{"--tlsCertificateKeyFile=/p.pem"}, base: tlsBase},
	"tlsCertificateKeyFilePassword":          {args: []string{"--tlsCertificateKeyFilePassword=pw"}, base: tlsBase, errSub: "certificateKeyFilePassword is not supported"},
	"tlsClusterCAFile":                       {args: []string{"--tlsClusterCAFile=/ca2.pem"}, base: tlsBase},
	"tlsClusterFile":                         {args: []string{"--tlsClusterFile=/m.pem"}, base: tlsBase},
	"tlsDisabledProtocols":                   {args: []string{"--tlsDisabledProtocols=TLS1_0"}, base: tlsBase},
	"tlsMode":                                {args: []string{"--tlsMode=requireTLS"}, base: allowBase},
	"wiredTigerCacheSizeGB":                  {args: []string{"--wiredTigerCacheSizeGB=0.5"}},
}

// TestEveryServeFlag (issue #14 item 7): every flag of relaydb serve
// either changes the configuration or fails with a clear error; none is
// accepted and dropped.
func TestEveryServeFlag(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfgFile, []byte("net:\n  port: 27999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	BindFlags(fs, &Serve{})
	fs.VisitAll(func(f *flag.Flag) {
		c, ok := serveFlagCases[f.Name]
		if !ok {
			t.Errorf("serve flag --%s is not in serveFlagCases: say what it does", f.Name)
			return
		}
		t.Run(f.Name, func(t *testing.T) {
			args := strings.ReplaceAll(strings.Join(c.args, "\x00"), "CONFIG", cfgFile)
			checkOption(t, c, func(extra []string) (any, error) {
				s, err := parse(t, append(append([]string{}, c.base...), extra...)...)
				return s, err
			}, strings.Split(args, "\x00"))
		})
	})
}

// checkOption runs the case: base alone must parse; base plus the option
// must then fail with errSub, warn with warnSub, or differ.
func checkOption(t *testing.T, c optionCase, run func(extra []string) (any, error), args []string) {
	t.Helper()
	before, err := run(nil)
	if err != nil {
		t.Fatalf("base %v alone: %v", c.base, err)
	}
	after, err := run(args)
	checkEffect(t, fmt.Sprint(args), c.errSub, c.warnSub, before, after, err)
}

// checkEffect checks what an option did (before and after are the
// configurations without and with it, err the error with it): with
// errSub the error must contain it; else there must be no error, and
// with warnSub a warning must contain it, else the configuration must
// differ.
func checkEffect(t *testing.T, what, errSub, warnSub string, before, after any, err error) {
	t.Helper()
	switch {
	case errSub != "":
		if err == nil || !strings.Contains(err.Error(), errSub) {
			t.Fatalf("%s: err %v, want one containing %q", what, err, errSub)
		}
	case err != nil:
		t.Fatalf("%s: %v", what, err)
	case warnSub != "":
		if w := warningsOf(after); !strings.Contains(strings.Join(w, "\n"), warnSub) {
			t.Fatalf("%s: warnings %q, want one containing %q", what, w, warnSub)
		}
	case reflect.DeepEqual(before, after):
		t.Fatalf("%s changed nothing in the configuration", what)
	}
}

func warningsOf(v any) []string {
	switch c := v.(type) {
	case Serve:
		return c.Warnings
	case Router:
		return c.Warnings
	}
	return nil
}

// routerFlagCases names every flag of relaydb router.
var routerFlagCases = map[string]optionCase{
	"bind_ip":                       {args: []string{"--bind_ip=10.0.0.1"}},
	"bind_ip_all":                   {args: []string{"--bind_ip_all"}},
	"clusterAuthMode":               {args: []string{"--clusterAuthMode=x509"}, base: tlsBase},
	"config":                        {args: []string{"--config=CONFIG"}},
	"configdb":                      {args: []string{"--configdb=cfg/h2:2"}},
	"ipAllowlist":                   {args: []string{"--ipAllowlist=10.0.0.0/8"}},
	"ipAllowlistAlwaysAllowMembers": {args: []string{"--ipAllowlistAlwaysAllowMembers=false"}, base: []string{"--ipAllowlist=10.0.0.0/8"}},
	"keyFile":                       {args: []string{"--keyFile=/k"}},
	"logappend":                     {args: []string{"--logappend"}},
	"logpath":                       {args: []string{"--logpath=/l"}},
	"maxConns":                      {args: []string{"--maxConns=10"}},
	"noscripting":                   {args: []string{"--noscripting"}},
	"port":                          {args: []string{"--port=28000"}},
	"setParameter":                  {args: []string{"--setParameter=userCacheInvalidationIntervalSecs=5"}},
}

// TestEveryRouterFlag: as TestEveryServeFlag, for relaydb router (the TLS
// flags are the data node's, checked there, bound by the same function).
func TestEveryRouterFlag(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(cfgFile, []byte("net:\n  port: 27999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("router", flag.ContinueOnError)
	BindRouterFlags(fs, &Router{})
	fs.VisitAll(func(f *flag.Flag) {
		c, ok := routerFlagCases[f.Name]
		if !ok {
			if sc, tls := serveFlagCases[f.Name]; tls && (strings.HasPrefix(f.Name, "tls") || strings.HasPrefix(f.Name, "ssl")) {
				c = sc
			} else {
				t.Errorf("router flag --%s is not in routerFlagCases: say what it does", f.Name)
				return
			}
		}
		t.Run(f.Name, func(t *testing.T) {
			args := strings.Split(strings.ReplaceAll(strings.Join(c.args, "\x00"), "CONFIG", cfgFile), "\x00")
			base := append([]string{"--configdb=cfg/h1:1"}, c.base...)
			checkOption(t, c, func(extra []string) (any, error) {
				var r Router
				rfs := flag.NewFlagSet("router", flag.ContinueOnError)
				rfs.SetOutput(io.Discard)
				BindRouterFlags(rfs, &r)
				if err := rfs.Parse(append(append([]string{}, base...), extra...)); err != nil {
					return r, err
				}
				return r, ResolveRouter(rfs, &r)
			}, args)
		})
	})
}
