#!/bin/sh
# Development TLS for the connectors' terminal listeners (docs/terminal-bridge.md, "Security"): a CA, and a
# certificate it signs for the host names the EAs dial. Local use only: production certificates come from a CA
# the operators' terminals trust (deploy/README.md, "Terminal TLS").
#
#   deploy/tls/make-terminal-tls.sh OUT_DIR HOST_NAME...
#
# Writes OUT_DIR/ca.crt (what broker-sim's TERMINAL_TLS_CA_FILE trusts), OUT_DIR/tls.crt and OUT_DIR/tls.key
# (the connectors' TERMINAL_TLS_CERT_FILE and TERMINAL_TLS_KEY_FILE). Files already there are kept, so a
# restart does not change what the EAs trust. The CA's key is not written out: nothing else is ever signed.
set -eu

out="$1"
shift
if [ -s "$out/ca.crt" ] && [ -s "$out/tls.crt" ] && [ -s "$out/tls.key" ]; then
  echo "terminal TLS: keeping the certificates in $out"
  exit 0
fi

names=""
for name in "$@" localhost; do names="${names:+$names,}DNS:$name"; done
names="$names,IP:127.0.0.1"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# shellcheck disable=SC2086 # $ec is a list of options
openssl req -x509 $ec -keyout "$work/ca.key" -out "$work/ca.crt" -days 825 -subj "/CN=mtx development terminal CA" 2>/dev/null
# shellcheck disable=SC2086
openssl req $ec -keyout "$work/tls.key" -out "$work/tls.csr" -subj "/CN=$1" -addext "subjectAltName=$names" 2>/dev/null
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -copy_extensions copy \
  -days 825 -out "$work/tls.crt" 2>/dev/null
cp "$work/ca.crt" "$work/tls.crt" "$work/tls.key" "$out/"
chmod 644 "$out/ca.crt" "$out/tls.crt"
chmod 600 "$out/tls.key"
echo "terminal TLS: certificate for $names in $out"
