package applog

// Django, gunicorn, psycopg2 and plain Python services.
var pythonCases = []corpusCase{
	{
		name: "chained-traceback-db-host-unresolved", eco: "python",
		source: "https://github.com/RadicalxChange/rxc-voice/issues/18",
		log: `
Traceback (most recent call last):
  File "/usr/local/lib/python3.8/site-packages/django/db/backends/postgresql/base.py", line 187, in get_new_connection
    connection = Database.connect(**conn_params)
  File "/usr/local/lib/python3.8/site-packages/psycopg2/__init__.py", line 127, in connect
    conn = _connect(dsn, connection_factory=connection_factory, **kwasync)
psycopg2.OperationalError: could not translate host name "db" to address: No address associated with hostname


The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/backend/RxcVoiceApi/manage.py", line 22, in <module>
    main()
  File "/backend/RxcVoiceApi/manage.py", line 18, in main
    execute_from_command_line(sys.argv)
`,
		want: `could not translate host name "db"`, signal: SigDNS, trace: TracePython, ent: ents{unresolved: "db"},
	},
	{
		name: "os-environ-keyerror", eco: "python",
		source: "https://github.com/greenstatic/bigbluebutton-exporter/issues/89",
		log: `
Traceback (most recent call last):
  File "server.py", line 7, in <module>
    import settings
  File "/app/settings.py", line 24, in <module>
    API_BASE_URL = validate_api_base_url(os.environ["API_BASE_URL"])
  File "/usr/local/lib/python3.8/os.py", line 675, in __getitem__
    raise KeyError(key) from None
KeyError: 'API_BASE_URL'
`,
		stamped: true, want: "KeyError: 'API_BASE_URL'", signal: SigMissingEnv, trace: TracePython, ent: ents{env: "API_BASE_URL"},
	},
	{
		name: "os-environ-keyerror-postgres-user", eco: "python",
		source: "https://github.com/hmajid2301/articles/issues/14",
		log: `
Traceback (most recent call last):
  File "/Users/testing/Desktop/Python/projects/source_code/src/example/__init__.py", line 4, in <module>
    from . import config
  File "/Users/testing/Desktop/Python/projects/source_code/src/example/config.py", line 3, in <module>
    user = os.environ['POSTGRES_USER']
  File "/Library/Developer/CommandLineTools/Library/Frameworks/Python3.framework/Versions/3.7/lib/python3.7/os.py", line 678, in __getitem__
    raise KeyError(key) from None
KeyError: 'POSTGRES_USER'
`,
		want: "KeyError: 'POSTGRES_USER'", signal: SigMissingEnv, ent: ents{env: "POSTGRES_USER"},
	},
	{
		name: "django-environ-during-handling", eco: "python",
		source: "https://github.com/joke2k/django-environ/issues/117",
		log: `
Traceback (most recent call last):
  File "/var/lib/ipmetadataretention/env3/lib/python3.4/site-packages/environ/environ.py", line 265, in get_value
    value = self.ENVIRON[var]
KeyError: 'DATABASE_URL'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/var/lib/ipmetadataretention/env3/lib/python3.4/site-packages/django/core/management/base.py", line 305, in run_from_argv
    self.execute(*args, **cmd_options)
`,
		want: "KeyError: 'DATABASE_URL'", signal: SigMissingEnv, ent: ents{env: "DATABASE_URL"},
	},
	{
		name: "psql-wait-loop-unready", eco: "postgresql", running: true,
		source: "https://github.com/paunin/PostDock/issues/251",
		log: `
>>> Check all partner nodes for common upstream node...
>>>>>> Checking NODE=mysystem-db-node-0.mysystem-db...
psql: could not translate host name "mysystem-db-node-0.mysystem-db" to address: Name or service not known
>>>>>> Skipping: failed to get master from the node!
>>>>>> Checking NODE=mysystem-db-node-1.mysystem-db...
psql: could not connect to server: Connection refused
\tIs the server running on host "mysystem-db-node-1.mysystem-db" (10.1.1.50) and accepting
\tTCP/IP connections on port 5432?
>>>>>> Skipping: failed to get master from the node!
`,
		want: `could not translate host name "mysystem-db-node-0.mysystem-db"`, signal: SigDNS, ent: ents{unresolved: "mysystem-db-node-0.mysystem-db"},
	},
	{
		name: "psql-refused-names-host-and-port", eco: "postgresql", running: true,
		source: "https://github.com/paunin/PostDock/issues/251",
		log: `
>>>>>> Checking NODE=mysystem-db-node-1.mysystem-db...
psql: could not connect to server: Connection refused
\tIs the server running on host "mysystem-db-node-1.mysystem-db" (10.1.1.50) and accepting
\tTCP/IP connections on port 5432?
>>>>>> Skipping: failed to get master from the node!
`,
		want: "could not connect to server: Connection refused", signal: SigRefused, ent: ents{endpoint: "mysystem-db-node-1.mysystem-db:5432"},
	},
	{
		name: "gunicorn-healthy-with-userwarning", eco: "python", running: true,
		source: "https://github.com/GoogleCloudPlatform/python-docs-samples/issues/1534",
		log: `
[2018-06-20 23:45:38 +0000] [5] [INFO] Starting gunicorn 19.7.1
[2018-06-20 23:45:38 +0000] [5] [INFO] Listening at: http://0.0.0.0:8080 (5)
[2018-06-20 23:45:38 +0000] [5] [INFO] Using worker: sync
[2018-06-20 23:45:38 +0000] [8] [INFO] Booting worker with pid: 8
/env/lib/python3.6/site-packages/psycopg2/__init__.py:144: UserWarning: The psycopg2 wheel package will be renamed from release 2.8; in order to keep installing from binary please use "pip install psycopg2-binary" instead. For details see: <http://initd.org/psycopg/docs/install.html#binary-install-from-pypi>.
  """)
`,
		want: "",
	},
	{
		name: "gunicorn-halt-after-worker-boot-failure", eco: "python",
		source: "https://github.com/giuseppe99barchetta/SuggestArr/issues/11",
		log: `
  File "/usr/local/lib/python3.13/site-packages/gunicorn/arbiter.py", line 529, in reap_workers
    raise HaltServer(reason, self.WORKER_BOOT_ERROR)
gunicorn.errors.HaltServer: <HaltServer 'Worker failed to boot.' 3>
2024-10-17 17:44:28,631 WARN exited: gunicorn (exit status 1; not expected)
2024-10-17 17:44:31,670 INFO spawned: 'gunicorn' with pid 18
`,
		want: "HaltServer 'Worker failed to boot.'",
	},
	{
		name: "sqlalchemy-wraps-psycopg2-dns", eco: "python",
		source: "https://github.com/mumoshu/kube-airflow/issues/10",
		log: `
Traceback (most recent call last):
  File "/usr/local/lib/python2.7/dist-packages/psycopg2/__init__.py", line 130, in connect
    conn = _connect(dsn, connection_factory=connection_factory, **kwasync)
sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not translate host name "postgres" to address: Name or service not known.
`,
		want: `could not translate host name "postgres"`, signal: SigDNS, ent: ents{unresolved: "postgres"},
	},
}
