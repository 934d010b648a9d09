// Package redact masks credentials in the evidence kubectl-triage writes to a
// workspace: Kubernetes objects (before they are serialised to resources/)
// and free text (container logs, event messages).
//
// The workspace is handed to an investigator that may be an AI agent, so it
// must never hold a credential (DESIGN.md §8, "Redaction"). At the same time
// the evidence has to stay useful: which variable held a password, which
// Secret key is referenced, which URL a client dialled. The package therefore
// masks values, never names: `DB_PASSWORD=[REDACTED]`, a Secret keeps its
// data keys, `postgres://app:[REDACTED]@db:5432/x` keeps scheme, user and
// host.
//
// Two kinds of evidence make a value a credential:
//
//   - its name (IsSensitiveName): an env var, a map key, a command-line flag
//     or a `name=value` / `name: value` / `"name":"value"` pair whose name says
//     TOKEN, SECRET, PASSWORD, … ;
//   - its shape, whatever the name: PEM private key blocks, JWTs, bearer and
//     basic Authorization credentials, passwords in URLs and DSNs, and the
//     fixed-prefix tokens of AWS, GitHub, Slack, OpenAI/Anthropic and Stripe.
//
// The package fails closed where the two goals conflict (a name that might
// hold a secret is masked unless its last word says it holds something else,
// such as a path or a name), and documents every exception it makes for
// diagnostic value.
package redact

// Mask replaces every masked value.
const Mask = "[REDACTED]"
