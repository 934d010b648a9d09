package applog

import (
	"slices"
	"testing"
)

// TestSQLServerEndpoints: SQL Server's "host,port" endpoint in ADO.NET
// connection strings (the Server/Data Source keywords of
// https://learn.microsoft.com/dotnet/api/microsoft.data.sqlclient.sqlconnection.connectionstring)
// and in EF Core's ConnectionError event; a comma in other prose is not one.
func TestSQLServerEndpoints(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Server=mssql,1433;Database=billing;User Id=sa;TrustServerCertificate=True", "mssql:1433"},
		{"Data Source=tcp:sql-0.sql.shop.svc,1433;Initial Catalog=orders", "sql-0.sql.shop.svc:1433"},
		{"An error occurred using the connection to database 'billing' on server 'mssql,1433'.", "mssql:1433"},
		{"loaded 3 plugins: auth,1433 rules", ""},
	} {
		got := Extract(tt.in).Endpoints
		if tt.want == "" && len(got) != 0 || tt.want != "" && !slices.Contains(got, tt.want) {
			t.Errorf("Extract(%q).Endpoints = %v, want %q", tt.in, got, tt.want)
		}
	}
}
