package applog

// Node.js, Express and pino.
var nodeCases = []corpusCase{
	{
		name: "listen-eaddrinuse-unhandled-error-event", eco: "node",
		source: "https://github.com/nodejs/help/issues/1930",
		log: `
events.js:174
      throw er; // Unhandled 'error' event
      ^

Error: listen EADDRINUSE: address already in use :::8080
    at Server.setupListenHandle [as _listen2] (net.js:1270:14)
    at listenInCluster (net.js:1318:12)
    at Server.listen (net.js:1405:7)
Emitted 'error' event at:
    at emitErrorNT (net.js:1297:8)
    at process._tickCallback (internal/process/next_tick.js:63:19)
`,
		stamped: true, want: "Error: listen EADDRINUSE: address already in use :::8080", signal: SigAddrInUse, trace: TraceNode, ent: ents{listen: "8080"},
	},
	{
		name: "listen-eaddrinuse-then-unrelated-line", eco: "node",
		source: "https://github.com/compdemocracy/polis/issues/202",
		log: `
Running node v6.2.0
events.js:160
      throw er; // Unhandled 'error' event
      ^

Error: listen EADDRINUSE 127.0.0.1:5002
    at Object.exports._errnoException (util.js:953:11)
    at exports._exceptionWithHostPort (util.js:976:20)
    at Server._listen2 (net.js:1253:14)
SERVICE_URL: https://preprod.pol.is
`,
		want: "Error: listen EADDRINUSE 127.0.0.1:5002", signal: SigAddrInUse, ent: ents{listen: "5002"},
	},
	{
		name: "info-listening-then-eaddrinuse", eco: "node",
		source: "https://github.com/springernature/boomcatch/issues/26",
		log: `
2014-05-10 15:23:31 INFO boomcatch: listening for 0.0.0.0:80/beacon

events.js:72
        throw er; // Unhandled 'error' event
              ^
Error: listen EADDRINUSE
    at errnoException (net.js:904:11)
    at Server._listen2 (net.js:1042:14)
`,
		want: "Error: listen EADDRINUSE", signal: SigAddrInUse, trace: TraceNode,
	},
	{
		name: "entrypoint-module-not-found-node20", eco: "node",
		source: "https://github.com/MuWinds/fakelocation_sever_docker/issues/2",
		log: `
node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/usr/src/app/node.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at Module._load (node:internal/modules/cjs/loader:1051:27)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:174:12)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.18.0
`,
		stamped: true, want: "Cannot find module '/usr/src/app/node.js'", signal: SigModule, trace: TraceNode, ent: ents{path: "/usr/src/app/node.js"},
	},
	{
		name: "dependency-not-installed", eco: "node",
		source: "https://github.com/nodejs/docker-node/issues/1917",
		log: `
module.js:550
    throw err;
    ^

Error: Cannot find module 'express'
    at Function.Module._resolveFilename (module.js:548:15)
    at Function.Module._load (module.js:475:25)
    at Module.require (module.js:597:17)
`,
		want: "Cannot find module 'express'", signal: SigModule,
	},
	{
		name: "require-stack-names-the-requirer", eco: "node",
		source: "https://github.com/geerlingguy/obs-task-list-overlay/issues/6",
		log: `
internal/modules/cjs/loader.js:934

  throw err;
  ^
Error: Cannot find module 'express'
Require stack:
- /usr/src/app/server.js
    at Function.Module._resolveFilename (internal/modules/cjs/loader.js:931:15)
    at Function.Module._load (internal/modules/cjs/loader.js:774:27) {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/usr/src/app/server.js' ]
}
`,
		want: "Cannot find module 'express'", signal: SigModule, ent: ents{path: "/usr/src/app/server.js"},
	},
	{
		name: "module-not-found-without-header", eco: "node",
		source: "https://github.com/makeplane/plane/issues/7517",
		log: `
Error: Cannot find module '/app/web/server.js'
    at Function._resolveFilename (node:internal/modules/cjs/loader:1401:15)
    at defaultResolveImpl (node:internal/modules/cjs/loader:1057:19)
    at node:internal/main/run_main_module:36:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v22.17.1
`,
		want: "Cannot find module '/app/web/server.js'", signal: SigModule,
	},
	{
		name: "pino-json-error-with-stack", eco: "node", format: FormatJSON,
		source: "https://github.com/pinojs/pino/issues/203",
		log: `
{"pid":14846,"hostname":"MLL1P05607","level":50,"time":1489001780459,"msg":"500 - \"\\\"yay! 500\\\"\"","type":"Error","stack":"StatusCodeError: 500 - \"\\\"yay! 500\\\"\"\n    at new StatusCodeError (/Users/anodari/other_projects/pino-bug/issue/node_modules/request-promise-core/lib/errors.js:32:15)\n    at Request.plumbing.callback (/Users/anodari/other_projects/pino-bug/issue/node_modules/request-promise-core/lib/plumbing.js:104:33)\n"}
`,
		want: "StatusCodeError: 500",
	},
	{
		name: "pino-info-lines-control", eco: "node", format: FormatJSON, running: true,
		source: "https://github.com/pinojs/pino/issues/539",
		log: `
{"level":30,"time":1541445073820,"msg":"processing request","pid":9052,"hostname":"Walters-Mac-mini.local","v":1}
{"level":30,"time":1541445073821,"msg":"processing request","pid":9052,"hostname":"Walters-Mac-mini.local","v":1}
`,
		want: "",
	},
	{
		name: "rbac-denied-in-init-helper", eco: "node",
		source: "https://github.com/yogeshlonkar/pod-dependency-init-container/issues/1",
		log: `
code: 403, statusCode: 403 } pods is forbidden: User "system:serviceaccount:{{MY_NAMESPACE}}:default" cannot list resource "pods" in API group "" at the cluster scope Error: pods is forbidden: User "system:serviceaccount:{{MY_NAMESPACE}}:default" cannot list resource "pods" in API group "" at the cluster scope
`,
		want: "pods is forbidden", signal: SigForbidden, ent: ents{forbidden: "list pods {{MY_NAMESPACE}}/default", status: 403},
	},
}
