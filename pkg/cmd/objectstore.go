package cmd

import (
	"context"
	"log/slog"

	"github.com/kubectl-triage/kubectl-triage/pkg/progress"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-triage/kubectl-triage/pkg/config"
	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/objectstore"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
)

// envStore names the object store in deployments (the Azure settings
// themselves are the SDK's: AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY, …).
const envStore = "INCIDENT_STORE"

const storeHelp = "Object store for incidents: azblob://CONTAINER, s3://BUCKET, gs://BUCKET or file:///DIR (s3:// and gs:// in the container image's build; credentials from the provider's usual environment, e.g. AZURE_STORAGE_ACCOUNT + AZURE_STORAGE_KEY or a managed identity)"

// storeFlags are --store and --keep-local of triage and watch.
type storeFlags struct {
	StoreURL  string
	KeepLocal bool
	objects   *objectstore.Store
}

func (s *storeFlags) addWatchFlags(f *pflag.FlagSet) {
	f.StringVar(&s.StoreURL, "store", "", storeHelp+"; each finished incident's workspace is uploaded to CLUSTER/YYYY/MM/DD/ID/. Env: "+envStore)
	f.BoolVar(&s.KeepLocal, "keep-local", true, "With --store: keep the local workspace after it is uploaded (false removes it once it is in the store)")
	config.BindEnv(f, "store", envStore)
}

// addTriageFlags gives one-shot triage --store and --keep-local.
func (s *storeFlags) addTriageFlags(f *pflag.FlagSet) {
	f.StringVar(&s.StoreURL, "store", "", storeHelp+"; the finished incident's workspace is uploaded to CLUSTER/YYYY/MM/DD/ID/. Env: "+envStore)
	f.BoolVar(&s.KeepLocal, "keep-local", true, "With --store: keep the local workspace after it is uploaded")
	config.BindEnv(f, "store", envStore)
}

// publishOneShot uploads a one-shot triage's incident and says where it
// went on the progress line; a failed upload is a warning (the report and
// the workspace are still here), not the run's failure.
func (s *storeFlags) publishOneShot(ctx context.Context, inc *incident.Incident, report progress.Func) {
	if s.objects == nil || inc == nil {
		return
	}
	if err := s.objects.Publish(ctx, inc, s.KeepLocal); err != nil {
		report(progress.Warnf("%v", err))
		return
	}
	report(progress.Incidentf("Stored in %s", inc.StoredAt()))
}

// openStore checks the one-shot command's store (creating a missing
// container or bucket where the credentials allow) before any incident
// exists; watch mode opens its own (pkg/watchmode).
func (s *storeFlags) openStore(ctx context.Context, log *slog.Logger) error {
	if s.StoreURL == "" {
		return nil
	}
	st, err := objectstore.Open(ctx, s.StoreURL, objectstore.Options{Create: true, Log: log})
	if err != nil {
		return err
	}
	s.objects = st
	log.Info("storing incidents", "store", st.String(), "keep_local", s.KeepLocal)
	return nil
}

func (s *storeFlags) closeStore() {
	if s.objects != nil {
		_ = s.objects.Close()
	}
}

// ---- reading incidents: the workspace root or the store ----

// incidentReader is where list, show and status read incidents from.
type incidentReader interface {
	List() ([]*store.Entry, []store.Skipped, error)
	Find(ref string) (*store.Entry, error)
	ReadFile(e *store.Entry, rel string) ([]byte, error)
	// Where names it in messages: the root's path or the store's URL.
	Where() string
}

type localReader struct{ *store.Store }

func (l localReader) Where() string { return l.Root }

type remoteReader struct {
	ctx context.Context
	s   *objectstore.Store
}

func (r remoteReader) List() ([]*store.Entry, []store.Skipped, error) { return r.s.List(r.ctx) }
func (r remoteReader) Find(ref string) (*store.Entry, error)          { return r.s.Find(r.ctx, ref) }
func (r remoteReader) ReadFile(e *store.Entry, rel string) ([]byte, error) {
	return r.s.ReadFile(r.ctx, e, rel)
}
func (r remoteReader) Where() string { return r.s.String() }

// addStoreFlag gives a reading command --store.
func (r *rootOptions) addStoreFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.StoreURL, "store", "", storeHelp+"; read the incidents there instead of the workspace root. Env: "+envStore)
	config.BindEnv(cmd.Flags(), "store", envStore)
}

// source is what the command reads: the store when --store is given,
// else the workspace root.
func (r *rootOptions) source() incidentReader {
	if r.reader != nil {
		return r.reader
	}
	return localReader{r.store}
}

// openReader opens --store for reading (never creating anything).
func (r *rootOptions) openReader(cmd *cobra.Command) error {
	if r.StoreURL == "" {
		return nil
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := objectstore.Open(ctx, r.StoreURL, objectstore.Options{})
	if err != nil {
		return err
	}
	r.reader = remoteReader{ctx: ctx, s: st}
	return nil
}
