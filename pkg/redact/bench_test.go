package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// benchLog returns about 1 MB of container log text shaped like what the
// collector tails: klog, JSON and logfmt application logs, access logs, Java
// and Go stack traces, and, rarely, a line leaking a credential.
var benchLog = sync.OnceValue(func() string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		ts := fmt.Sprintf("2024-05-01T12:%02d:%02d.%03dZ", i/3600%60, i/60%60, i%1000)
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&b, "I0501 12:%02d:%02d.%06d       1 controller.go:%d] \"Reconciling\" deployment=\"shop/checkout\" generation=%d\n", i%60, i%60, r.IntN(1e6), 100+r.IntN(300), r.IntN(40))
		case 1:
			fmt.Fprintf(&b, `{"level":"info","ts":"%s","caller":"server/handler.go:%d","msg":"request completed","method":"POST","path":"/v1/orders/%d","status":201,"duration_ms":%d,"trace_id":"%016x"}`+"\n", ts, r.IntN(200), r.IntN(1e5), r.IntN(500), r.Uint64())
		case 2:
			fmt.Fprintf(&b, "10.0.%d.%d - - [01/May/2024:12:00:%02d +0000] \"GET /api/cart/%d?currency=EUR&page=%d HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"\n", r.IntN(255), r.IntN(255), i%60, r.IntN(1e5), r.IntN(9), r.IntN(1e4))
		case 3:
			fmt.Fprintf(&b, "%s level=warn msg=\"slow query\" db=orders table=line_items rows=%d elapsed=%dms retry=%d\n", ts, r.IntN(1e4), r.IntN(5000), r.IntN(3))
		case 4:
			fmt.Fprintf(&b, "%s ERROR [http-nio-8080-exec-%d] c.e.shop.CheckoutService : charge failed: dial tcp 10.0.3.7:5432: connect: connection refused\n", ts, r.IntN(20))
		case 5:
			b.WriteString("\tat com.example.shop.CheckoutService.charge(CheckoutService.java:88)\n\tat org.springframework.aop.framework.ReflectiveMethodInvocation.proceed(ReflectiveMethodInvocation.java:186)\n")
		case 6:
			b.WriteString("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b3c]\n\ngoroutine 1 [running]:\nmain.(*Server).handle(0xc000123456, {0x7f8a9c, 0xc0001a2b3c})\n\t/src/server.go:142 +0x1d\n")
		case 7:
			fmt.Fprintf(&b, "%s INFO  Started CheckoutApplication in %d.%03d seconds (process running for %d.%d)\n", ts, r.IntN(20), r.IntN(1000), r.IntN(30), r.IntN(10))
		case 8:
			fmt.Fprintf(&b, "%s DEBUG cache key=user:%d:cart hit=%t ttl=%ds\n", ts, r.IntN(1e5), r.IntN(2) == 0, r.IntN(600))
		case 9:
			fmt.Fprintf(&b, "%s WARN  failed to refresh token: Post \"https://auth.example.com/oauth/token\": context deadline exceeded\n", ts)
		case 10:
			fmt.Fprintf(&b, `{"level":"error","ts":"%s","msg":"upstream error","error":"rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp 10.96.0.%d:443: i/o timeout\""}`+"\n", ts, r.IntN(255))
		default:
			if r.IntN(10) == 0 { // about 1 line in 120 leaks something
				switch r.IntN(4) {
				case 0:
					fmt.Fprintf(&b, "%s DEBUG env DB_PASSWORD=%s DB_HOST=db\n", ts, dbPassword)
				case 1:
					fmt.Fprintf(&b, "%s DEBUG outgoing headers: Authorization: Bearer %s\n", ts, jwt)
				case 2:
					fmt.Fprintf(&b, "%s INFO connecting to postgres://app:%s@db:5432/orders\n", ts, dbPassword)
				default:
					fmt.Fprintf(&b, `{"level":"debug","ts":"%s","msg":"config","apiKey":"%s"}`+"\n", ts, awsSecret)
				}
			} else {
				fmt.Fprintf(&b, "%s INFO  order %d placed by customer %d total=%d.%02d EUR\n", ts, r.IntN(1e6), r.IntN(1e5), r.IntN(500), r.IntN(100))
			}
		}
	}
	return b.String()
})

func BenchmarkText(b *testing.B) {
	log := benchLog()
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		Text(log)
	}
}

func TestBenchLogIsRedacted(t *testing.T) {
	out, n := Text(benchLog())
	if n == 0 {
		t.Fatal("bench log plants no secrets")
	}
	assertNoSecrets(t, out)
	for _, keep := range []string{"cache key=user:", "failed to refresh token: Post", "connection refused", "nil pointer dereference"} {
		if !strings.Contains(out, keep) {
			t.Errorf("redaction removed %q", keep)
		}
	}
}
