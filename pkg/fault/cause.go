package fault

// CauseKey names an object that may be the common cause of several faults,
// "Kind/namespace/name" ("Node//name" for a node), the way watch's
// grouping compares them. Names and namespaces hold no slash, so keys of
// different objects never collide.
func CauseKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}
