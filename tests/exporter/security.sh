#!/bin/bash
# statctr-exporter's defences (issue 38), each with what it must answer:
#  - TLS with a client CA (openssl makes a test CA, a server certificate and
#    two client certificates, one of another CA) and bcrypt basic auth
#    ($2b$, checked by Debian 12's libcrypt): the right certificate and
#    password get 200; no password, a wrong one, an unknown user get 401; no
#    client certificate or one of another CA gets 403; plain HTTP gets none;
#  - malformed requests (garbage, a huge header, a bad version, a body on a
#    GET) are refused and the exporter keeps serving;
#  - slow-loris clients holding connections with half a request are dropped
#    after timeout_s, and neither they nor tricklers keep a scrape waiting;
#  - 200 concurrent scrapes: each gets 200 or 503 (max_scrapes), never an
#    error, and the exporter's RSS after five such rounds is within 1 MiB of
#    its RSS after the first.
. "$(dirname "$0")/lib.sh"
ex_need openssl python3

fx_config
cat >>"$TMP/statctr.conf" <<'CONF'
exporter = { max_scrapes = 2; threads = 4; timeout_s = 2; max_connections = 512;
             max_request_bytes = 8192; };
CONF
fx_writer -t 2 -n 1000
fx_writer_settled

# ---- a test CA, the server's certificate, clients of it and of another CA
pki=$TMP/pki
mkdir -p "$pki"
ossl() { openssl "$@" >>"$TMP/openssl.log" 2>&1 || fail "openssl $1 failed: $(tail -n 3 "$TMP/openssl.log")"; }
mkca() {
	ossl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" -keyout "$pki/$1.key" -out "$pki/$1.crt"
}
# mkcert NAME CA [SAN]: NAME's key and certificate, signed by CA.
mkcert() {
	ossl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$pki/$1.key" -out "$pki/$1.csr"
	printf '%s\n' "${3:-extendedKeyUsage=clientAuth}" >"$pki/$1.ext"
	ossl x509 -req -in "$pki/$1.csr" -CA "$pki/$2.crt" -CAkey "$pki/$2.key" -CAcreateserial \
		-days 2 -extfile "$pki/$1.ext" -out "$pki/$1.crt"
}
mkca testca
mkca otherca
mkcert server testca "subjectAltName=IP:127.0.0.1
extendedKeyUsage=serverAuth"
mkcert client testca
mkcert intruder otherca
chmod 600 "$pki"/*.key

hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret pass", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))')
case $hash in '$2b$'*) ;; *) fail "python3's crypt gave no bcrypt hash: $hash" ;; esac
python3 -W ignore -c 'import crypt, sys; sys.exit(crypt.crypt("s3cret pass", sys.argv[1]) != sys.argv[1])' "$hash" ||
	fail "libcrypt does not check its own \$2b\$ hash"
cat >"$TMP/web.yml" <<YML
# exporter-toolkit's format
tls_server_config:
  cert_file: pki/server.crt
  key_file: pki/server.key
  client_ca_file: "pki/testca.crt"
  client_auth_type: RequireAndVerifyClientCert
basic_auth_users:
  prometheus: '$hash'
YML
chmod 600 "$TMP/web.yml"
"$EXPORTER" --check-config -c "$TMP/statctr.conf" --web.config.file="$TMP/web.yml" >"$TMP/check.out" 2>&1 ||
	fail "--check-config refused the web configuration: $(cat "$TMP/check.out")"
grep -q 'TLS with client certificates, 1 basic-auth users' "$TMP/check.out" ||
	fail_later "--check-config: $(cat "$TMP/check.out")"

CA=(--cacert "$pki/testca.crt")
CLIENT=(--cert "$pki/client.crt" --key "$pki/client.key")
EX_SCHEME=https EX_CURL_OPTS="--cacert $pki/testca.crt --cert $pki/client.crt --key $pki/client.key" \
	ex_start --web.config.file="$TMP/web.yml"
export EX_SCHEME=https

# ---- TLS and basic auth
check "right certificate and password" 200 "$(ex_status /metrics "${CA[@]}" "${CLIENT[@]}" -u 'prometheus:s3cret pass')"
ex_get /metrics "${CA[@]}" "${CLIENT[@]}" -u 'prometheus:s3cret pass' | grep -q '^statctr_segment_up{segment="dataplane"' ||
	fail_later "no series over TLS"
check "again (the remembered password)" 200 "$(ex_status /metrics "${CA[@]}" "${CLIENT[@]}" -u 'prometheus:s3cret pass')"
check "no password" 401 "$(ex_status /metrics "${CA[@]}" "${CLIENT[@]}")"
curl -s -D - -o /dev/null "${CA[@]}" "${CLIENT[@]}" "https://127.0.0.1:$EX_PORT/metrics" |
	grep -qi '^www-authenticate: basic realm="statctr-exporter"' || fail_later "no WWW-Authenticate"
check "wrong password" 401 "$(ex_status /metrics "${CA[@]}" "${CLIENT[@]}" -u 'prometheus:s3cret')"
check "a password prefix of the right one" 401 "$(ex_status /metrics "${CA[@]}" "${CLIENT[@]}" -u 'prometheus:s3cret pas')"
check "unknown user" 401 "$(ex_status /metrics "${CA[@]}" "${CLIENT[@]}" -u 'root:s3cret pass')"
check "no client certificate" 403 "$(ex_status /metrics "${CA[@]}" -u 'prometheus:s3cret pass')"
check "a certificate of another CA" 403 "$(ex_status /metrics "${CA[@]}" --cert "$pki/intruder.crt" --key "$pki/intruder.key" -u 'prometheus:s3cret pass')"
check "plain HTTP to the TLS port" 000 "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$EX_PORT/metrics")"
check "a server certificate the client does not trust" 000 "$(curl -s -o /dev/null -w '%{http_code}' -m 5 --cacert "$pki/otherca.crt" "https://127.0.0.1:$EX_PORT/metrics")"
ex_stop

# ---- the rest over plain HTTP with the same users (a web config without TLS)
sed -n '/^basic_auth_users:/,$p' "$TMP/web.yml" >"$TMP/auth.yml"
chmod 600 "$TMP/auth.yml"
EX_SCHEME=http
ex_start --web.config.file="$TMP/auth.yml"
AUTH=(-u 'prometheus:s3cret pass')
check "plain HTTP with auth" 200 "$(ex_status /metrics "${AUTH[@]}")"
check "plain HTTP without" 401 "$(ex_status /metrics)"

# ---- malformed requests: refused, the exporter serves on
raw() { # raw BYTES: what the exporter answers to BYTES on one connection (first line)
	python3 - "$EX_PORT" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
try:
    data = s.recv(4096)
except OSError:
    data = b""
print(data.split(b"\r\n")[0].decode("latin-1", "replace") or "(closed)")
PY
}
check "garbage" 1 "$(raw 'GARBAGE GARBAGE\r\n\r\n' | grep -Ec '^HTTP/1.1 (400|405)|^\(closed\)')"
check "a bad version" 1 "$(raw 'GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n' | grep -Ec '^HTTP/1.1 (400|505)|^\(closed\)')"
big=$(head -c 20000 /dev/zero | tr '\0' a)
check "a header over max_request_bytes" 1 "$(raw "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: $big\r\n\r\n" | grep -Ec '^HTTP/1.1 (400|413|414|431)|^\(closed\)')"
check "a NUL in the request line" 1 "$(raw 'GET /met\x00rics HTTP/1.1\r\nHost: x\r\n\r\n' | grep -Ec '^HTTP/1.1 (400|401|404)|^\(closed\)')"
check "a body on a GET" 1 "$(raw 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello' | grep -Ec '^HTTP/1.1 (400|401|413)')"
check "served after them" 200 "$(ex_status /metrics "${AUTH[@]}")"

# ---- slow loris: 100 connections that send half a request, then nothing,
# and 50 that trickle a header byte every 0.5 s.  The idle ones are closed
# after timeout_s; the tricklers (libmicrohttpd has no deadline for a whole
# request: each byte restarts the idle timeout) hold a connection each,
# bounded by max_connections and max_request_bytes, and hold no thread: a
# scrape among them is answered at once.
loris() { # loris MODE COUNT: "closed all after S s" or "still open: N"
	python3 - "$EX_PORT" "$1" "$2" <<'PY'
import socket, sys, time
port, mode, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    socks.append(s)
start = time.time()
while socks and time.time() - start < (30 if mode == "idle" else 8):
    time.sleep(0.5)
    for s in list(socks):
        try:
            if mode == "trickle":
                s.sendall(b"X")
            s.settimeout(0.01)
            if s.recv(1) == b"":
                raise OSError
        except socket.timeout:
            continue
        except OSError:
            socks.remove(s)
print("closed all after %.1f s" % (time.time() - start) if not socks else "still open: %d" % len(socks), flush=True)
PY
}
loris idle 100 >"$TMP/idle.out" 2>&1 &
idle=$!
fx_track "$idle"
loris trickle 50 >"$TMP/trickle.out" 2>&1 &
trickle=$!
fx_track "$trickle"
sleep 1
t0=$(fx_now_ms)
check "a scrape among 150 slow clients" 200 "$(ex_status /metrics "${AUTH[@]}")"
log "that scrape took $(($(fx_now_ms) - t0)) ms"
wait "$idle" "$trickle"
fx_untrack "$idle"
fx_untrack "$trickle"
grep -q 'closed all after' "$TMP/idle.out" || fail_later "idle slow clients kept: $(cat "$TMP/idle.out")"
log "100 idle slow clients: $(cat "$TMP/idle.out") (timeout_s = 2)"
log "50 trickling slow clients after 8 s: $(cat "$TMP/trickle.out") (held, within max_connections)"

# ---- 200 concurrent scrapes, five rounds: 200 or 503, memory flat
round() {
	seq 200 | xargs -P 200 -I{} curl -s -o /dev/null -w '%{http_code}\n' -m 30 -u 'prometheus:s3cret pass' \
		"http://127.0.0.1:$EX_PORT/metrics" >"$TMP/round.$1"
}
round 1
rss1=$(fx_rss_kb "$EX_PID")
for r in 2 3 4 5; do round "$r"; done
rss5=$(fx_rss_kb "$EX_PID")
cat "$TMP"/round.* | sort | uniq -c | sed 's/^ */  /' >"$TMP/codes"
log "status codes of 1000 scrapes in rounds of 200: $(tr '\n' ' ' <"$TMP/codes")"
check "only 200 and 503" 0 "$(cat "$TMP"/round.* | grep -vcE '^(200|503)$')"
[ "$(grep -c '^200$' "$TMP/round.1")" -ge 2 ] || fail_later "fewer than 2 of 200 concurrent scrapes served"
log "RSS after round 1: $rss1 kB, after round 5: $rss5 kB"
if [ "${SANITIZER:-none}" != none ]; then
	# ASan keeps freed memory in its quarantine (256 MiB): RSS says nothing
	# there; LeakSanitizer checks for leaks when the exporter exits.
	log "$SANITIZER build: the RSS bound is checked in plain builds"
else
	[ $((rss5 - rss1)) -le 1024 ] || fail_later "RSS grew by $((rss5 - rss1)) kB over 4 rounds"
fi
busy=$(ex_get /metrics "${AUTH[@]}" | awk '/^statctr_exporter_requests_refused_total\{cause="busy"\}/ { print $2 }')
check "503s counted" "$(cat "$TMP"/round.* | grep -c '^503$')" "$busy"
check "served after all" 200 "$(ex_status /metrics "${AUTH[@]}")"
kill -0 "$EX_PID" || fail "the exporter died"
test_finish
