package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// A dependency cannot be reached or will not talk to the application:
// refused, unresolved, silent, its certificate or its credentials
// rejected.
const (
	ConnectionRefused Class = "ConnectionRefused"
	DNS               Class = "DNS"
	Timeout           Class = "Timeout"
	TLS               Class = "TLS"
	AuthFailed        Class = "AuthFailed"
	// NoServerCertificate: the application's own listener is set to serve
	// TLS and has no certificate to serve; no peer is involved.
	NoServerCertificate Class = "NoServerCertificate"
	// ForwardingLoop: a DNS server sees its own queries come back, so its
	// upstream leads back to it.
	ForwardingLoop Class = "ForwardingLoop"
)

// CoreDNS' loop plugin exits on a query it sent coming back: "[FATAL]
// plugin/loop: Seen "HINFO IN …" more than twice, loop detected" (1.2),
// "[FATAL] plugin/loop: Loop (127.0.0.1:55309 -> :53) detected for zone
// "."" (1.3 on). The upstream is most often /etc/resolv.conf, which under
// dnsPolicy Default is the node's: a local stub resolver there
// (systemd-resolved's 127.0.0.53, dnsmasq's 127.0.0.1) is the pod itself
// (https://coredns.io/plugins/loop/#troubleshooting). The setting that
// forwards there is traced by the pod rules (ForwardingSettingRe).
var _ = register(Def{
	Class: ForwardingLoop,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)plugin/loop: .*loop detected|\bLoop \([^)]*\) detected for zone|\bforwarding loop\b`),
		Explains: "the DNS server's forwarded queries come back to it: its upstream (most often the resolvers of /etc/resolv.conf) leads back to itself",
		Fix:      "Give the DNS server an upstream that does not lead back to it: on nodes running systemd-resolved point the kubelet's resolvConf (--resolv-conf) at /run/systemd/resolve/resolv.conf and restart the DNS pods, or forward to an explicit upstream address instead of /etc/resolv.conf.", Priority: 94}},
})

// ForwardingSettingRe is a DNS server's setting that forwards to the
// resolvers of /etc/resolv.conf: CoreDNS' "forward . /etc/resolv.conf" (or
// "proxy" before 1.5), dnsmasq's resolv-file.
var ForwardingSettingRe = regexp.MustCompile(`(?:^|\s)(?:forward|proxy)\s+\S+\s+/etc/resolv\.conf\b|resolv-file=/etc/resolv\.conf`)

var _ = register(Def{
	Class: ConnectionRefused,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(connection refused|ECONNREFUSED|connect: connection refused|could not connect to|failed to connect to|unable to connect to)`),
		Explains: "the application cannot reach a dependency it needs at startup",
		Fix:      "Check that the dependency's Service exists, has ready endpoints and listens on that port; make the application retry instead of exiting.", Priority: 80}},
	Signals:    []applog.Signal{applog.SigRefused},
	Dependency: true,
	Subject: func(line string) string {
		if ep := endpointSubject(line); ep != "" {
			return ep
		}
		// Prisma before 4.x quoted host and port apart: "Can't reach
		// database server at `db`:`5432`".
		if m, ok := submatch.Find(prismaAddrRe, line); ok {
			return m.Get("host") + ":" + m.Get("port")
		}
		return ""
	},
})

var _ = register(Def{
	Class: DNS,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(no such host|name or service not known|temporary failure in name resolution|could not resolve host|getaddrinfo ENOTFOUND|bad address '[a-z0-9.-]+')`),
		Explains: "the application cannot resolve a host name it needs",
		Fix:      "Check the host name in the configuration and that the Service it names exists in the expected namespace.", Priority: 80}},
	Rank:       1, // a line of both is a ConnectionRefused
	Signals:    []applog.Signal{applog.SigDNS},
	Dependency: true,
	Subject: func(line string) string {
		// nginx names the host in quotes and the config file:line after
		// it, which reads as host:port.
		ep := EndpointIn(line)
		if h := applog.Extract(line).Unresolved; len(h) > 0 {
			if strings.HasPrefix(ep, h[0]+":") {
				return ep // the host with the port it was wanted on
			}
			return "host " + h[0]
		}
		if ep != "" {
			return ep
		}
		// Erlang's inet error, which the log component does not read as a
		// host: "epmd error for host rabbit-0: nxdomain".
		if m, ok := submatch.Find(nxdomainRe, line); ok {
			return m.Get("host")
		}
		return ""
	},
})

// A dial or call that got no answer: the host exists but nothing answers
// in time (its pods not Ready, a NetworkPolicy dropping the packets, a
// wrong address). Below the specific classes: "failed to connect to X: i/o
// timeout" stays a connection failure.
var _ = register(Def{
	Class: Timeout,
	Patterns: []Pattern{{
		Explains: "a connection or call to a dependency times out",
		Fix:      "Check the dependency the line names: that its Service has ready endpoints, that no NetworkPolicy drops this pod's traffic to it (or its ingress from this pod), and that the address and port are right; make the application retry instead of exiting.", Priority: 65}},
	Signals:    []applog.Signal{applog.SigTimeout},
	Dependency: true,
	Subject:    endpointSubject,
})

var _ = register(Def{
	Class: TLS,
	Patterns: []Pattern{{
		Explains: "a TLS handshake fails: a certificate is expired, not yet valid, issued for another name, or signed by an unknown authority",
		Fix:      "Renew the certificate (or fix the node's clock), make the name the client dials one of the certificate's names, or give the client the CA bundle that signed it.", Priority: 83},
		// No certificate is involved: the client requires TLS and the
		// server does not offer it. lib/pq's "pq: SSL is not enabled on
		// the server", libpq's "server does not support SSL, but SSL was
		// required", pgJDBC's "The server does not support SSL.",
		// node-postgres' "The server does not support SSL connections".
		{re: regexp.MustCompile(`(?i)SSL is not enabled on the server|server does not support SSL`),
			Explains: "the client requires TLS but the server does not offer it (a database without SSL, while the driver's default or the connection string asks for it)",
			Fix:      "Make the connection string match the server: sslmode=disable (or prefer) for a server without TLS inside the cluster, or enable TLS on the server (certificate and key) when the traffic must be encrypted.", Priority: 84}},
	Rank:     2, // its no-TLS row is neither a missing module nor a lock
	Signals:  []applog.Signal{applog.SigTLS},
	PeerHost: true,
	Subject: func(line string) string {
		for _, c := range applog.Extract(line).Certs {
			if !c.NotAfter.IsZero() {
				return "certificate expired " + c.NotAfter.UTC().Format("2006-01-02 15:04 MST")
			}
			if c.Wanted != "" {
				return "certificate not valid for " + c.Wanted
			}
		}
		return ""
	},
})

// A server set to listen with TLS that has no certificate: Kestrel's
// "No server certificate was specified, and the default developer
// certificate could not be found", nginx's 'no "ssl_certificate" is
// defined for the "listen ... ssl" directive', Go crypto/tls's "neither
// Certificates, GetCertificate, nor GetConfigForClient set in Config". The
// setting that asks for the TLS listener (an https:// URL in the
// container's environment) is traced by the pod rules. Keycloak's
// production mode (`start`) serves HTTPS only unless told otherwise:
// "Key material not provided to setup HTTPS" (its StartCommandTest
// failNoTls, https://github.com/keycloak/keycloak/issues/12803).
var _ = register(Def{
	Class: NoServerCertificate,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)no server certificate was specified|no "ssl_certificate" is defined for the "listen|neither Certificates, GetCertificate, nor GetConfigForClient set in Config`),
		Explains: "the application is set to serve HTTPS (a TLS listener) but has no server certificate for it",
		Fix:      "Either give the server a certificate and key (a Secret mounted into the container and the server's setting pointed at it: for Kestrel ASPNETCORE_Kestrel__Certificates__Default__Path and __KeyPath, or __Password for a .pfx), or serve plain HTTP inside the cluster and terminate TLS at the Ingress or mesh: drop the https:// URL from the setting that asks for it.", Priority: 86},
		{re: regexp.MustCompile(`Key material not provided to setup HTTPS`),
			Explains: "Keycloak started in production mode (start), which serves HTTPS, without a certificate and key",
			Fix:      "Either give Keycloak a certificate and key (a Secret mounted into the container, with KC_HTTPS_CERTIFICATE_FILE and KC_HTTPS_CERTIFICATE_KEY_FILE pointing at them), or, with TLS terminated at the Ingress or proxy, enable plain HTTP (KC_HTTP_ENABLED=true, and the proxy setting so Keycloak trusts its headers: KC_PROXY_HEADERS=xforwarded from Keycloak 25, KC_PROXY=edge before); start-dev is for development only.", Priority: 86}},
})

// A login the dependency refused. The first row is the client's view
// ("Couldn't log in", "ACCESS_REFUSED - Login was refused", "password
// authentication failed"); the others are the server's own reason, which
// its log states (read for a dependency that answers, DESIGN.md §7), each
// with the fix on the server's side.
var _ = register(Def{
	Class: AuthFailed,
	Patterns: []Pattern{{
		Explains: "a dependency rejects the application's credentials",
		Fix:      "Check the credentials the pod is given (the Secret and key it reads) against the dependency's, and that the user exists there.", Priority: 81},
		// rabbitmq-server rabbit_access_control: the default guest user
		// is limited to loopback connections (loopback_users).
		{re: regexp.MustCompile(`(?i)user '[^']+' can only connect via localhost`),
			Explains: "the broker refuses the user from any address but localhost: RabbitMQ's default guest user is in loopback_users",
			Fix:      "Create a user for the application on the broker (rabbitmqctl add_user and set_permissions, or RABBITMQ_DEFAULT_USER/RABBITMQ_DEFAULT_PASS before its first start) and give the client those credentials; only on a test broker, allow guest remotely with loopback_users = none in rabbitmq.conf.", Priority: 81},
		// PostgreSQL auth.c's errdetail: the role is missing, has no
		// password, or the password differs.
		{re: regexp.MustCompile(`Role "[^"]+" does not exist|User "[^"]+" has no password assigned|Password does not match for user`),
			Explains: "the database server has no such role or another password for it; the postgres image creates POSTGRES_USER with POSTGRES_PASSWORD only when it initialises an empty data directory, so a reused volume keeps the old roles",
			Fix:      "Create the role or set its password on the server (psql: CREATE ROLE … LOGIN PASSWORD …, or ALTER ROLE … PASSWORD …) to match the client's Secret, or point the client at the credentials the data directory was initialised with.", Priority: 81},
		{re: regexp.MustCompile(`no pg_hba\.conf entry for host|pg_hba\.conf rejects connection`),
			Explains: "the database server's pg_hba.conf admits no connection of this client's address, user, database and TLS mode",
			Fix:      "Add a pg_hba.conf line for the pod network (host all all <pod CIDR> scram-sha-256, or the chart's setting for it) and reload the server, or connect with the TLS mode a line allows.", Priority: 81},
		{re: regexp.MustCompile(`Access denied for user '[^']+'@'[^']+'`),
			Explains: "the MySQL server has no account for that user from this client's host, or another password for it; MYSQL_USER and MYSQL_PASSWORD apply only when the image initialises an empty data directory",
			Fix:      "Create the account or reset its password on the server for the client's host ('user'@'%'), with GRANT on its database, or give the client the credentials the server holds.", Priority: 81},
		{re: regexp.MustCompile(`UserNotFound|Could not find user`),
			Explains: "the MongoDB server has no such user in the authentication database the client names (authSource)",
			Fix:      "Create the user in that database (db.createUser) or set authSource in the client's connection string to the database the user was created in.", Priority: 81},
		// An HTTP API's 403: the client authenticated (or presented a
		// token) and the API's policy refuses it the request.
		{re: applog.HTTP403Re,
			Explains: "the dependency's API answers 403: it refuses the identity the application presents (its token, role or service account) the request",
			Fix:      "Grant the identity the application presents the request in the dependency's own policy (Vault: the auth role's bound_service_account_names and bound_service_account_namespaces, and the policies it gives; a cloud API: the role's policy), or give the application an identity that has it.", Priority: 81, yields: true},
		// Workload identity: the cloud refuses to exchange the pod's
		// ServiceAccount token for a cloud identity. AWS STS for IRSA
		// ("Not authorized to perform sts:AssumeRoleWithWebIdentity",
		// https://github.com/kubernetes/autoscaler/issues/4922), GKE's
		// "Permission 'iam.serviceAccounts.getAccessToken' denied" (the
		// roles/iam.workloadIdentityUser binding), Azure's "AADSTS70021: No
		// matching federated identity record found" (the federated
		// credential's subject).
		{re: regexp.MustCompile(`(?i)(?:not authorized to perform:? sts:AssumeRoleWithWebIdentity|AccessDenied[^\n]{0,120}AssumeRoleWithWebIdentity)|Permission '?iam\.serviceAccounts\.getAccessToken'? denied|AADSTS70021|No matching federated identity record found`),
			Explains: "the cloud refuses the pod's workload identity: the role's trust policy (AssumeRoleWithWebIdentity; GKE: the Google service account's workloadIdentityUser binding; Azure: the federated identity credential) does not admit this pod's ServiceAccount (system:serviceaccount:<namespace>:<name>), or names another OIDC issuer or audience",
			Fix:      "Make the role trust this pod's ServiceAccount: in the IAM role the ServiceAccount's eks.amazonaws.com/role-arn annotation (or AWS_ROLE_ARN) names, the trust policy's condition <oidc-provider>:sub must be system:serviceaccount:<namespace>:<serviceaccount> of this pod and :aud sts.amazonaws.com, with the cluster's OIDC provider as Federated principal (GKE: gcloud iam service-accounts add-iam-policy-binding … --role roles/iam.workloadIdentityUser --member serviceAccount:<project>.svc.id.goog[<namespace>/<serviceaccount>]; Azure: a federated credential with that subject); or run the pod with the ServiceAccount the role trusts.", Priority: 81}},
	Rank:       1, // a line of both is an SQL one
	Signals:    []applog.Signal{applog.SigUnauthorized},
	Dependency: true,
	Subject: func(line string) string {
		if u := applog.Extract(line).Users; len(u) > 0 {
			return "user " + u[0]
		}
		return ""
	},
})

// endpointSubject is the endpoint a connection failure names.
func endpointSubject(line string) string {
	// Java's InetSocketAddress, "name/ip:port": both halves matter.
	if m := javaAddrRe.FindString(line); m != "" {
		return m
	}
	if ep := applog.Extract(line).Endpoints; len(ep) > 0 {
		return ep[0]
	}
	return EndpointIn(line)
}

var (
	javaAddrRe   = regexp.MustCompile(`\b[a-zA-Z][\w.-]*[a-zA-Z0-9]/\d+\.\d+\.\d+\.\d+:\d{2,5}\b`)
	prismaAddrRe = regexp.MustCompile("at `(?P<host>[\\w.-]+)`:`(?P<port>\\d{1,5})`")
	nxdomainRe   = regexp.MustCompile(`host '?(?P<host>[\w.-]+)'?: nxdomain`)
	// hostPortRe finds the endpoint a connection error names.
	hostPortRe = regexp.MustCompile(`(?:dial tcp |connect to |connecting to |to |host )?\[?(?P<host>[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]|\d+\.\d+\.\d+\.\d+)\]?:(?P<port>\d{2,5})\b`)
	// clockRe matches what hostPortRe takes for host:port in a timestamp:
	// "2026-11-26T07:00" in a logfmt line's time=2026-11-26T07:00:01Z.
	clockRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T)?\d{1,2}$`)
)

// EndpointIn returns "host:port" named in a log line, if any.
func EndpointIn(line string) string {
	for _, m := range submatch.FindAll(hostPortRe, line, -1) {
		if !clockRe.MatchString(m.Get("host")) {
			return m.Get("host") + ":" + m.Get("port")
		}
	}
	return ""
}
