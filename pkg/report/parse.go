package report

// Parse reads an external agent's markdown report (DESIGN.md §7 asks for
// that structure; agents follow it more or less) into a Report. It is the
// only reader of markdown reports: the builtin agent returns its report as
// data, and external agents' reports are parsed once, by the engine.
//
// Only the headline is read: the root-cause statement (also the title),
// its confidence band and the summary. Source keeps the markdown itself,
// which stays the report that is shown and saved.
func Parse(md string) (*Report, error) {
	if err := Validate(md); err != nil {
		return nil, err
	}
	stmt, level := rootCauseLine(md)
	return &Report{
		Title:           stmt,
		Summary:         Sections(md)["summary"],
		ConfidenceLevel: level,
		RootCause:       RootCause{Statement: stmt},
		Source:          md,
	}, nil
}
