package e2e

// A probe answered with 4xx where the application's own log says why. Every
// scenario of this group (Django DisallowedHost, Rails HostAuthorization,
// homepage host validation, OPA's administrative policy, an aggregated API
// server's authorizer, nginx's empty web root) is captured in
// test/scenarios; the list stays for the misses registry.
var corpus4aProbe = []scenario{}
