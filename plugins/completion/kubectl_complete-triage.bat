@echo off
rem kubectl (1.26+) runs kubectl_complete-triage, found on PATH (with PATHEXT),
rem to complete `kubectl triage` arguments; kubectl-triage's hidden __complete
rem command answers. Put this file next to kubectl-triage.exe on PATH.
rem hack/dist.sh gives it CRLF line endings in the release archive.
kubectl-triage.exe __complete %*
