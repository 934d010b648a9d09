// Package network holds the rules about how traffic reaches pods (layer
// service): a Service without ready endpoints or whose targetPort nothing
// listens on, an Ingress whose backends or class are wrong. One file per
// rule.
package network
