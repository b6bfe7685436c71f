package privilege

import "testing"

// setIPAllowlist is for the cluster managers, getIPAllowlist for them and monitors.
func TestIPAllowlistActions(t *testing.T) {
	for _, tc := range []struct {
		role     string
		set, get bool
	}{
		{"clusterMonitor", false, true}, {"clusterManager", true, true}, {"clusterAdmin", true, true},
		{"root", true, true}, {"hostManager", false, false}, {"readWriteAnyDatabase", false, false},
	} {
		privs, ok := Privileges(Role{tc.role, "admin"})
		if !ok {
			t.Fatalf("role %s unknown", tc.role)
		}
		var cluster Action
		for _, p := range privs {
			if p.Resource.Cluster || p.Resource.Any {
				cluster |= p.Actions
			}
		}
		if cluster.Has(SetIPAllowlist) != tc.set || cluster.Has(GetIPAllowlist) != tc.get {
			t.Errorf("%s: set %v get %v, want %v %v", tc.role, cluster.Has(SetIPAllowlist), cluster.Has(GetIPAllowlist), tc.set, tc.get)
		}
	}
	for _, n := range []string{"setIPAllowlist", "getIPAllowlist"} {
		if needs, ok := Needs(n, "admin", nil); !ok || len(needs) != 1 {
			t.Errorf("%s needs %v, %v", n, needs, ok)
		}
	}
}
