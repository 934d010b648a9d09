package logs

import "testing"

// TestForwardingLoop: CoreDNS' loop plugin, in its 1.2 and its later
// wording, is a forwarding loop; a query that merely times out is not.
func TestForwardingLoop(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		// coredns/coredns#2087
		{`2018/09/09 12:21:26 [FATAL] plugin/loop: Seen "HINFO IN 2050421060481615995.5620656063561519376." more than twice, loop detected`, true},
		// coredns/coredns#2400, the wording from CoreDNS 1.3 on
		{`[FATAL] plugin/loop: Loop (127.0.0.1:55953 -> :53) detected for zone ".", see https://coredns.io/plugins/loop#troubleshooting. Query: "HINFO 4547991504243258144.3688648895315093531."`, true},
		{`[ERROR] plugin/errors: 2 4547991504243258144.3688648895315093531. HINFO: read udp 10.244.0.4:46532->10.96.0.10:53: i/o timeout`, false},
	} {
		d := FindDecisive(tt.line + "\n")
		if got := d != nil && d.Pattern.Class == ForwardingLoop; got != tt.want {
			t.Errorf("%q: ForwardingLoop = %v, want %v (%+v)", tt.line, got, tt.want, d)
		}
	}
}
