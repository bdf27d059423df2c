#!/usr/bin/env bash
# System packages Paydesk needs on Debian/Ubuntu (run as root or with sudo):
#   build tools for better-sqlite3 and keytar (built from source when no prebuilt binary can be had),
#   libsecret + gnome-keyring + dbus for the OS keychain, Debian's Chromium for the end-to-end tests,
#   PostgreSQL for the team ledger's tests (a private cluster is started when no server answers),
#   and its client tools (pg_dump, pg_restore) for the team server's backup and restore.
set -euo pipefail
packages=(python3 make g++ pkg-config libsecret-1-dev gnome-keyring dbus chromium postgresql postgresql-client)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "[paydesk] system packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
