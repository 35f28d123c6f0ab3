#!/usr/bin/env bash
# Installs what `make test` needs beyond Rust, Node and npm, when it is missing: Debian's
# chromium (browser tests), tmux (terminal tests), strace (the durability test watches the
# fdatasync before an answer), curl (the contract run), PostgreSQL (the PostgreSQL
# backend's tests start a server of their own), and the Python packages of the
# protocol and contract tests. Does nothing on a machine that has them all, so `make test`
# runs it every time; CI (.ci/run) runs `make test` on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v make >/dev/null 2>&1 || need+=(make)
command -v strace >/dev/null 2>&1 || need+=(strace)
command -v curl >/dev/null 2>&1 || need+=(curl)
# The PostgreSQL backend's tests start a throwaway server from Debian's package.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "the tests need: ${need[*]}; install them with: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The OpenAPI test validates the document with this validator when it is present.
python3 -c "import openapi_spec_validator" 2>/dev/null || pip install -q openapi-spec-validator
# The Python protocol test (make test-python): the real supabase_auth client, under pytest.
python3 -c "import supabase_auth, pytest" 2>/dev/null || pip install -q -r tests/python/requirements.txt
# The contract test (make test-contract) fuzzes the daemon with schemathesis.
command -v st >/dev/null 2>&1 || pip install -q schemathesis
