package allowlist

import (
	"net"
	"testing"
)

func tcp(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 5000} }

func TestMatcherAdmitCountsAndPublishes(t *testing.T) {
	m := NewMatcher(nil)
	if !m.Admit(tcp("10.9.9.9")) || m.Policy().Source != SourceNone {
		t.Fatal("the default matcher must allow everyone")
	}
	sub := m.Subscribe()
	m.Store(&Policy{List: MustParse("127.0.0.3"), Source: SourceCommand})
	select {
	case <-sub:
	default:
		t.Fatal("Store did not wake the subscriber")
	}
	m.Store(&Policy{List: MustParse("127.0.0.3"), Source: SourceCommand}) // coalesced, must not block
	m.Store(&Policy{List: MustParse("127.0.0.3"), Source: SourceCommand})
	for _, a := range []string{"127.0.0.2", "127.0.0.2", "10.0.0.1"} {
		if m.Admit(tcp(a)) {
			t.Fatalf("%s admitted", a)
		}
	}
	if !m.Admit(tcp("127.0.0.3")) || !m.Admit(&net.UnixAddr{Name: "/tmp/x", Net: "unix"}) {
		t.Fatal("an allowed or non-IP address was refused")
	}
	m.CountClosed(2)
	s := m.Stats(1)
	if s.Refused != 3 || s.Closed != 2 || len(s.ByAddr) != 1 || s.ByAddr[0] != (AddrCount{"127.0.0.2", 2}) {
		t.Fatalf("stats = %+v", s)
	}
}

func TestMatcherBoundsAddresses(t *testing.T) {
	m := NewMatcher(&Policy{List: MustParse("10.0.0.1")})
	for i := range maxRefusedAddrs + 50 {
		m.Admit(&net.TCPAddr{IP: net.IPv4(11, byte(i>>16), byte(i>>8), byte(i)), Port: 1})
	}
	if s := m.Stats(1 << 20); s.Refused != maxRefusedAddrs+50 || len(s.ByAddr) != maxRefusedAddrs {
		t.Fatalf("refused %d, addresses kept %d", s.Refused, len(s.ByAddr))
	}
}

func BenchmarkAdmit(b *testing.B) {
	m := NewMatcher(&Policy{List: MustParse("127.0.0.1", "10.0.0.0/8", "fd00::/8"), AlwaysAllowMembers: true})
	a := tcp("10.2.3.4")
	for b.Loop() {
		if !m.Admit(a) {
			b.Fatal("refused")
		}
	}
}
