#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring (a real Secret
# Service), as the tests and CI need. Usage: scripts/with-keyring.sh <command> [args…]
set -euo pipefail
if [ "${PAYDESK_IN_KEYRING:-}" = "1" ]; then exec "$@"; fi
export PAYDESK_IN_KEYRING=1
exec dbus-run-session -- bash -c '
  set -euo pipefail
  # A throwaway keyring: its own HOME-independent data dir, unlocked with a throwaway password.
  export XDG_DATA_HOME="$(mktemp -d)"
  printf "paydesk-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec "$@"
' bash "$@"
