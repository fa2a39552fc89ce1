#!/bin/sh
# What the official postgres image's entry point does with POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB and
# POSTGRES_HOST_AUTH_METHOD on first start: initdb, then a temporary server (on a socket only) that creates the
# database, then the real one. Both servers log "ready to accept connections", as the official image's do.
set -e
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}" "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:-postgres}" >"$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" -E UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all $POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$POSTGRES_DB" != postgres ]; then psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""; fi
  pg_ctl -D "$PGDATA" -m fast -w stop
fi
if [ "$1" = postgres ]; then shift; exec postgres -D "$PGDATA" "$@"; fi
exec "$@"
