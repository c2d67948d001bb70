# redis.sh - sourced by the tests that need Redis (test_ratelimit_aws.sh, the rate budget bench): a real
# redis-server on a free loopback port in a temp dir, no persistence, stopped by PID (its pidfile, so a
# subshell may stop and start it again). Needs: PIDS (an array, killed at exit) and dnsb-free-port logic.
# REDIS_PASSWORD, when set, is required by the server (requirepass).
# Gives: start_redis DIR (sets REDIS_PORT, REDIS_DIR), stop_redis, start_redis_again (same port), redis_pid.
# shellcheck shell=bash

redis_free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
redis_pid() { cat "$REDIS_DIR/redis.pid" 2>/dev/null; }

# start_redis_again: on REDIS_PORT, waiting (10 s at most) until it answers PING. @return 1 when it never does
start_redis_again() {
	local i
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$REDIS_DIR" --save "" --appendonly no \
		--pidfile "$REDIS_DIR/redis.pid" --logfile "$REDIS_DIR/redis.log" ${REDIS_PASSWORD:+--requirepass "$REDIS_PASSWORD"} &
	PIDS+=($!)
	for i in $(seq 1 200); do
		[ "$(REDISCLI_AUTH=${REDIS_PASSWORD:-} redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && return 0
		sleep 0.05
	done
	return 1
}

start_redis() {
	REDIS_DIR=$1
	mkdir -p "$REDIS_DIR"
	REDIS_PORT=$(redis_free_port)
	start_redis_again
}

stop_redis() {
	local pid
	pid=$(redis_pid)
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	rm -f "$REDIS_DIR/redis.pid"
}
