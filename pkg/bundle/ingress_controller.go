package bundle

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// An Ingress is only as healthy as the controller that serves its class:
// a controller crash-looping, or never started, leaves every Ingress of
// the class without a route while each object looks right
// (docs/DESIGN.md, "Correlations").

// defaultClassAnnotation marks the IngressClass an Ingress without a class
// gets.
const defaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"

// servedIngress is an Ingress target, the name of its class (its
// ingressClassName, the legacy annotation, else the default class) and
// the controller the IngressClass names ("" when no class is known).
func (c *collector) servedIngress() (ing, class, controller string) {
	if c.b.Target.Kind != "Ingress" {
		return "", "", ""
	}
	for _, i := range c.b.Ingresses {
		if i.Name != c.b.Target.Name {
			continue
		}
		switch {
		case i.Spec.IngressClassName != nil:
			class = *i.Spec.IngressClassName
		case i.Annotations["kubernetes.io/ingress.class"] != "":
			class = i.Annotations["kubernetes.io/ingress.class"]
		}
		for _, ic := range c.b.IngressClasses {
			if ic.Name == class || class == "" && ic.Annotations[defaultClassAnnotation] == "true" {
				class, controller = ic.Name, ic.Spec.Controller
			}
		}
		if class == "" {
			return "", "", ""
		}
		return i.Name, class, controller
	}
	return "", "", ""
}

// controllerImages are the images of the controllers that, by default,
// serve the class their IngressClass's spec.controller names without a
// flag saying so.
var controllerImages = map[string]string{
	"k8s.io/ingress-nginx":           "ingress-nginx/controller",
	"nginx.org/ingress-controller":   "nginx-ingress",
	"traefik.io/ingress-controller":  "traefik",
	"ingress.k8s.aws/alb":            "aws-load-balancer-controller",
	"haproxy.org/ingress-controller": "haproxy-ingress",
	"projectcontour.io/contour":      "contour",
}

// servesIngressClass: the container is an ingress controller for class:
// a flag whose name says ingress class (ingress-nginx's and NGINX Inc's
// --ingress-class, Traefik's --providers.kubernetesingress.ingressclass)
// set to it, or --controller-class set to the IngressClass's controller,
// or the image of the controller that value names. A container that says
// it is another controller (its --controller-class, or the image of a
// controller the class does not name) is not, whatever its class flag:
// two controllers may both default to the class "nginx".
func servesIngressClass(ctr *corev1.Container, class, controller string) bool {
	return ingressClassScore(ctr, class, controller) > 0
}

// ingressClassScore ranks how surely the container serves class: 2 when a
// class flag names it, 1 when only its --controller-class or image matches
// the IngressClass's controller (an installation for another class of the
// same controller may be found first), 0 when it is not the controller.
func ingressClassScore(ctr *corev1.Container, class, controller string) int {
	words := append(append([]string(nil), ctr.Command...), ctr.Args...)
	byFlag, byController := false, false
	for i, w := range words {
		name, value, ok := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !ok && i+1 < len(words) {
			value = words[i+1]
		}
		name = strings.ToLower(name)
		switch {
		case name == "controller-class" && controller != "":
			if value != controller {
				return 0
			}
			byController = true
		case strings.HasSuffix(name, "ingress-class") || strings.HasSuffix(name, "ingressclass"):
			byFlag = byFlag || value == class
		}
	}
	// The image says which controller it is only when the flags do not: a
	// redistribution (rancher/nginx-ingress-controller) of ingress-nginx
	// says so with --controller-class.
	if controller != "" && !byController {
		for other, img := range controllerImages {
			if other != controller && imageIs(ctr.Image, img) {
				return 0
			}
		}
	}
	img, known := controllerImages[controller]
	switch {
	case byFlag:
		return 2
	case byController || known && imageIs(ctr.Image, img):
		return 1
	}
	return 0
}

// imageIs: the image's repository is repo, or ends with "/"+repo
// (registry.k8s.io/ingress-nginx/controller:v1.9.4 is
// ingress-nginx/controller; rancher/nginx-ingress-controller is not
// nginx-ingress).
func imageIs(image, repo string) bool {
	name := image
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name = name[:i]
	}
	return name == repo || strings.HasSuffix(name, "/"+repo)
}
