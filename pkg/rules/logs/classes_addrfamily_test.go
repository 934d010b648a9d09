package logs

import "testing"

// TestAddressFamilyIsAListen: EAFNOSUPPORT on a listen, a bind or nginx's
// socket() is AddressFamily; on an outgoing connection or a name lookup it
// is not.
func TestAddressFamilyIsAListen(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"2024/01/18 10:01:02 [emerg] 1#1: socket() [::]:9096 failed (97: Address family not supported by protocol)", true},
		{"listen tcp6 [::]:8080: socket: address family not supported by protocol", true},
		{"<Error> Application: DB::Exception: Listen [::]:8123 failed: Poco::Exception. Code: 1000, e.code() = 0, e.displayText() = DNS error: EAI: Address family for hostname not supported", true},
		{"Error: connect EAFNOSUPPORT ::1:6379", false},
		{"dial tcp [2600:1f18::1]:443: socket: address family not supported by protocol", false},
		{"socket.gaierror: [Errno -9] Address family for hostname not supported", false},
	} {
		d := FindDecisive(tt.line + "\n")
		if got := d != nil && d.Pattern.Class == AddressFamily; got != tt.want {
			t.Errorf("%q: AddressFamily = %v, want %v (%+v)", tt.line, got, tt.want, d)
		}
	}
}
