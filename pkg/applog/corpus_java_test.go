package applog

// Spring Boot, plain Java and JVM Kafka/ZooKeeper clients.
var javaCases = []corpusCase{
	{
		name: "spring-failure-analysis-port-in-use", eco: "java",
		source: "https://github.com/digitalinnovationone/dio-springboot/issues/18",
		log: `
Error starting ApplicationContext. To display the condition evaluation report re-run your application with 'debug' enabled.
2025-05-19T07:26:26.072-03:00 ERROR 2376 --- [my-first-web-app] [           main] o.s.b.d.LoggingFailureAnalysisReporter   : 

***************************
APPLICATION FAILED TO START
***************************

Description:

Web server failed to start. Port 8080 was already in use.

Action:

Identify and stop the process that's listening on port 8080 or configure this application to listen on another port.
`,
		stamped: true, want: "Port 8080 was already in use", signal: SigAddrInUse, ent: ents{listen: "8080"},
	},
	{
		name: "spring-failure-analysis-tomcat-connector", eco: "java",
		source: "https://github.com/apache/skywalking/issues/3696",
		log: `
***************************
APPLICATION FAILED TO START
***************************

Description:

The Tomcat connector configured to listen on port 8080 failed to start. The port may already be in use or the connector may be misconfigured.

Action:

Verify the connector's configuration, identify and stop any process that's listening on port 8080, or configure this application to listen on another port.
`,
		want: "Tomcat connector configured to listen on port 8080 failed to start", signal: SigAddrInUse, ent: ents{listen: "8080"},
	},
	{
		name: "hikari-root-cause-connection-refused", eco: "java",
		source: "https://github.com/axelor/open-platform-demo/issues/9",
		log: `
Caused by: org.postgresql.util.PSQLException: Connection to localhost:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.
        at org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:265)
        at org.postgresql.core.ConnectionFactory.openConnection(ConnectionFactory.java:49)
        at com.zaxxer.hikari.pool.HikariPool.checkFailFast(HikariPool.java:506)
        ... 40 common frames omitted
Caused by: java.net.ConnectException: Connection refused: connect
        at java.net.DualStackPlainSocketImpl.waitForConnect(Native Method)
        at java.net.DualStackPlainSocketImpl.socketConnect(DualStackPlainSocketImpl.java:85)
`,
		want: "java.net.ConnectException: Connection refused: connect", signal: SigRefused, trace: TraceJava, ent: ents{endpoint: "localhost:5432"},
	},
	{
		name: "spring-unknown-host-with-root-cause", eco: "java",
		source: "https://github.com/eugenp/tutorials/issues/15291",
		log: `
17:42:36.277 [http-nio-8080-exec-8] ERROR o.a.c.c.C.[.[.[.[dispatcherServlet] - Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed; nested exception is org.springframework.web.client.ResourceAccessException: I/O error on GET request for "http://myapp-discoveryserver/apps": myapp-discoveryserver: Name does not resolve; nested exception is java.net.UnknownHostException: myapp-discoveryserver: Name does not resolve] with root cause
java.net.UnknownHostException: myapp-discoveryserver: Name does not resolve
\tat java.net.Inet4AddressImpl.lookupAllHostAddr(Native Method)
\tat java.net.InetAddress$2.lookupAllHostAddr(InetAddress.java:929)
\tat java.net.InetAddress.getAddressesFromNameService(InetAddress.java:1324)
`,
		want: "UnknownHostException: myapp-discoveryserver", signal: SigDNS, trace: TraceJava, ent: ents{unresolved: "myapp-discoveryserver", url: "http://myapp-discoveryserver/apps"},
	},
	{
		name: "uncaught-in-main-innermost-cause", eco: "java",
		source: "https://github.com/liuqingli/CCLearner/issues/1",
		log: `
START!!
Exception in thread "main" org.postgresql.util.PSQLException: Connection to localhost:5433 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.
        at org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:252)
        at org.postgresql.Driver.connect(Driver.java:274)
        at vt.cs.CCLearner_Feature.main(CCLearner_Feature.java:94)
Caused by: java.net.ConnectException: Connection refused (Connection refused)
        at java.net.PlainSocketImpl.socketConnect(Native Method)
`,
		want: "ConnectException: Connection refused (Connection refused)", signal: SigRefused, trace: TraceJava, ent: ents{endpoint: "localhost:5433"},
	},
	{
		name: "port-in-use-exception-no-log-line", eco: "java",
		source: "https://github.com/RameshMF/spring-mvc-tutorial/issues/18",
		log: `
org.springframework.boot.web.server.PortInUseException: Port 8080 is already in use
\tat org.springframework.boot.web.server.PortInUseException.lambda$throwIfPortBindingException$0(PortInUseException.java:70) ~[spring-boot-2.6.0.jar:2.6.0]
\tat org.springframework.boot.web.embedded.tomcat.TomcatWebServer.start(TomcatWebServer.java:228) ~[spring-boot-2.6.0.jar:2.6.0]
`,
		want: "Port 8080 is already in use", signal: SigAddrInUse, ent: ents{listen: "8080"},
	},
	{
		name: "spring-healthy-startup-control", eco: "java", running: true,
		source: "https://github.com/kubernetes/kubernetes/issues/63396",
		log: `
  .   ____          _            __ _ _
 /\\ / ___'_ __ _ _(_)_ __  __ _ \ \ \ \
( ( )\___ | '_ | '_| | '_ \/ _` + "`" + ` | \ \ \ \
 \\/  ___)| |_)| | | | | || (_| |  ) ) ) )
  '  |____| .__|_| |_|_| |_\__, | / / / /
 =========|_|==============|___/=/_/_/_/
 :: Spring Boot ::        (v1.5.7.RELEASE)

2018-05-03 10:24:03.545  INFO 1 --- [           main] com.youben.Application                   : Starting Application on data-transfer-web-8596955dc9-mdcdw with PID 1 (/app.war started by root in /)
2018-05-03 10:24:03.646  INFO 1 --- [           main] com.youben.Application                   : No active profile set, falling back to default profiles: default
2018-05-03 10:24:06.045  INFO 1 --- [           main] ationConfigEmbeddedWebApplicationContext : Refreshing org.springframework.boot.context.embedded.AnnotationConfigEmbeddedWebApplicationContext@45ff54e6: startup date [Thu May 03 10:24:05 UTC 2018]; root of context hierarchy
`,
		want: "",
	},
	{
		name: "zookeeper-client-unknown-host", eco: "kafka",
		source: "https://github.com/helm/charts/issues/9701",
		log: `
[main] INFO org.apache.zookeeper.ZooKeeper - Initiating client connection, connectString=kafka-zookeeper:2181 sessionTimeout=40000 watcher=io.confluent.admin.utils.ZookeeperConnectionWatcher@1ddc4ec2
[main] ERROR io.confluent.admin.utils.ClusterStatus - Error while waiting for Zookeeper client to connect to the server [kafka-zookeeper:2181].
java.net.UnknownHostException: kafka-zookeeper: Name or service not known
\tat java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method)
\tat java.net.InetAddress$2.lookupAllHostAddr(InetAddress.java:928)
\tat org.apache.zookeeper.ZooKeeper.<init>(ZooKeeper.java:445)
`,
		stamped: true, want: "UnknownHostException: kafka-zookeeper: Name or service not known", signal: SigDNS, ent: ents{unresolved: "kafka-zookeeper"},
	},
	{
		name: "kafka-broker-fatal-after-retry-loop", eco: "kafka",
		source: "https://github.com/jhipster/generator-jhipster/issues/7334",
		log: `
waiting for kafka to be ready
waiting for kafka to be ready
waiting for kafka to be ready
[2018-03-21 00:22:29,263] INFO Terminate ZkClient event thread. (org.I0Itec.zkclient.ZkEventThread)
[2018-03-21 00:22:29,265] FATAL Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)
`,
		want: "Fatal error during KafkaServer startup",
	},
}
