package investigate

var ()
