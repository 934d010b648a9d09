package e2e

// c5App are the batch's application-side misses (pods whose log, or a
// dependency's, says why): the comment on each says what the report says
// today and which general check or correlation is missing. Each one that
// passes is captured into test/scenarios and leaves this list.
var c5App = []scenario{}
