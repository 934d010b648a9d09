package rule

// Confidence is how sure a finding is, 0–1. Rules use the named bands, not
// literals, so the same strength of evidence gets the same number across
// rules; the values are the ones the reports and tests have always shown.
type Confidence float64

// The bands, strongest first.
const (
	// Certain: the component that acted says so in as many words, and
	// nothing else could produce it (the kernel's OOMKilled).
	Certain Confidence = 0.97
	// Definitive: an authoritative status or event names the cause.
	Definitive Confidence = 0.95
	// Strong: decisive evidence, one short inference away from the cause.
	Strong Confidence = 0.9
	// High: the cause is well supported; an alternative is unlikely.
	High Confidence = 0.85
	// Likely: good evidence, one alternative remains open.
	Likely Confidence = 0.8
	// Probable: the evidence points one way but is indirect.
	Probable Confidence = 0.75
	// Plausible: consistent with the evidence, not confirmed by it.
	Plausible Confidence = 0.7
	// Moderate: a fault is seen; its cause is inferred from its shape.
	Moderate Confidence = 0.6
	// Fair: a little better than even.
	Fair Confidence = 0.55
	// Even: as likely as not; typical of context findings.
	Even Confidence = 0.5
	// Doubtful: worth listing, probably not the cause.
	Doubtful Confidence = 0.45
	// Weak: a hint only.
	Weak Confidence = 0.4
	// Speculative: a guess where no rule validated a cause.
	Speculative Confidence = 0.3
	// Slight: barely supported.
	Slight Confidence = 0.25
	// Negligible: ruled almost out.
	Negligible Confidence = 0.1
)
