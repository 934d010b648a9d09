package logs

import (
	"strings"
	"testing"
)

// TestTLSTrustInChain: the JVM's trust failure (PKIX path building failed,
// unable to find valid certification path) at the end of a Caused-by chain
// is a TLS failure, not an unhandled exception, and an earlier line of the
// same event that names the URL it was fetching gives the peer's host; a
// chain whose innermost cause is a refused connection is no TLS failure.
func TestTLSTrustInChain(t *testing.T) {
	tests := []struct {
		name, source, log string
		class             Class
		subject           string // the decisive subject contains it
	}{
		{"spring-resttemplate-dex-openid", "https://github.com/terrakube-io/terrakube/issues/846",
			"2024-04-02 10:11:12.345 ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed\n" +
				"Caused by: org.springframework.web.client.ResourceAccessException: I/O error on GET request for \"https://tk-dex.tk.net/dex/.well-known/openid-configuration\": PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n" +
				"\tat org.springframework.web.client.RestTemplate.doExecute(RestTemplate.java:791)\n" +
				"Caused by: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n" +
				"\tat java.base/sun.security.provider.certpath.SunCertPathBuilder.build(Unknown Source)\n",
			TLS, "host tk-dex.tk.net"},
		{"jicofo-smack-no-host", "https://github.com/jitsi/jitsi-meet/issues/2117",
			"Jicofo 2019-10-25 23:46:04.128 SEVERE: [16] org.jitsi.impl.protocol.xmpp.XmppProtocolProvider.doConnect().309 Failed to connect/login: javax.net.ssl.SSLHandshakeException: sun.security.validator.ValidatorException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n" +
				"org.jivesoftware.smack.SmackException: javax.net.ssl.SSLHandshakeException: sun.security.validator.ValidatorException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n" +
				"\tat org.jivesoftware.smack.tcp.XMPPTCPConnection$PacketReader.parsePackets(XMPPTCPConnection.java:1076)\n" +
				"Caused by: javax.net.ssl.SSLHandshakeException: sun.security.validator.ValidatorException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target\n" +
				"\tat sun.security.ssl.Alerts.getSSLException(Alerts.java:192)\n",
			TLS, ""},
		{"java-httpclient-innermost-only", "https://github.com/koushikkothagal/coronavirus-tracker/issues/1",
			"Caused by: java.io.IOException: unable to find valid certification path to requested target\n" +
				"\tat java.net.http/jdk.internal.net.http.HttpClientImpl.send(HttpClientImpl.java:565) ~[java.net.http:na]\n",
			TLS, ""},
		// The same shape of chain ending in a refused connection.
		{"chain-ends-refused", "negative",
			"Caused by: org.springframework.web.client.ResourceAccessException: I/O error on GET request for \"http://tk-dex.tk.net/dex/.well-known/openid-configuration\": Connection refused\n" +
				"\tat org.springframework.web.client.RestTemplate.doExecute(RestTemplate.java:791)\n" +
				"Caused by: java.net.ConnectException: Connection refused\n" +
				"\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n",
			ConnectionRefused, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil {
				t.Fatalf("no decisive line (%s)", tt.source)
			}
			if d.Pattern.Class != tt.class {
				t.Fatalf("class %s, want %s; line %q (%s)", d.Pattern.Class, tt.class, d.Line, tt.source)
			}
			if !strings.Contains(d.Subject, tt.subject) {
				t.Errorf("subject %q, want it to name %q", d.Subject, tt.subject)
			}
		})
	}
}

// TestTLSNotOffered: a client requiring TLS from a server that offers none
// is its own TLS row, not a certificate problem; a certificate failure keeps
// the certificate row.
func TestTLSNotOffered(t *testing.T) {
	for _, tt := range []struct {
		name, log  string
		notOffered bool
	}{
		// helm/charts#20108 (lib/pq against the stable/postgresql chart).
		{"lib/pq", `time="2020-01-10T13:13:09Z" level=error msg="failed to connect database: pq: SSL is not enabled on the server" type=APPLOG` + "\n", true},
		// pgJDBC's PSQLException.
		{"pgjdbc", "org.postgresql.util.PSQLException: The server does not support SSL.\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.enableSSL(ConnectionFactoryImpl.java:523)\n", true},
		{"a certificate", "x509: certificate signed by unknown authority\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil || d.Pattern.Class != TLS {
				t.Fatalf("decisive %+v, want TLS", d)
			}
			if got := strings.Contains(d.Pattern.Explains, "does not offer it"); got != tt.notOffered {
				t.Errorf("explains %q", d.Pattern.Explains)
			}
		})
	}
}

// TestNoServerCertificate: a server whose own TLS listener has no
// certificate is one class whatever the server (Kestrel, nginx, Go's
// crypto/tls), and never the client-side TLS class or an unhandled crash.
func TestNoServerCertificate(t *testing.T) {
	for _, tt := range []struct {
		name, source, log string
		class             Class
	}{
		{"kestrel", "https://github.com/aspnetrun/run-aspnetcore-microservices/issues/85",
			"fail: Microsoft.Extensions.Hosting.Internal.Host[11]\n      Hosting failed to start\n      System.InvalidOperationException: Unable to configure HTTPS endpoint. No server certificate was specified, and the default developer certificate could not be found or is out of date.\n         at Microsoft.AspNetCore.Hosting.ListenOptionsHttpsExtensions.UseHttps(ListenOptions listenOptions)\n" +
				"Unhandled exception. System.InvalidOperationException: Unable to configure HTTPS endpoint. No server certificate was specified, and the default developer certificate could not be found or is out of date.\n",
			NoServerCertificate},
		{"nginx", "nginx's own message (src/http/modules/ngx_http_ssl_module.c)",
			`2024/03/02 10:11:12 [emerg] 1#1: no "ssl_certificate" is defined for the "listen ... ssl" directive in /etc/nginx/conf.d/default.conf:3` + "\n" +
				`nginx: [emerg] no "ssl_certificate" is defined for the "listen ... ssl" directive in /etc/nginx/conf.d/default.conf:3` + "\n",
			NoServerCertificate},
		{"go crypto/tls", "crypto/tls's own error (src/crypto/tls/common.go)",
			"2024/03/02 10:11:12 listen: tls: neither Certificates, GetCertificate, nor GetConfigForClient set in Config\n",
			NoServerCertificate},
		{"a client's certificate failure", "negative",
			"x509: certificate signed by unknown authority\n", TLS},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil {
				t.Fatalf("no decisive line (%s)", tt.source)
			}
			if d.Pattern.Class != tt.class {
				t.Errorf("class %s, want %s; line %q (%s)", d.Pattern.Class, tt.class, d.Line, tt.source)
			}
		})
	}
}
