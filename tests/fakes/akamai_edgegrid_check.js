// akamai_edgegrid_check.js - the EdgeGrid signature of a request as Akamai's own Node library computes it
// (npm akamai-edgegrid, src/auth.js generateAuth), for tests/fakes/fake_akamai.py. One JSON request a line on
// stdin: {"method", "base" ("https://127.0.0.1:PORT"), "path" (with its query), "body", "client_token",
// "client_secret", "access_token", "timestamp", "nonce"}; one JSON line back: {"authorization"} or {"error"}.
// The library is installed at test time under tests/fakes/node_modules (never committed).
'use strict';
const path = require('path');
const readline = require('readline');
const auth = require(path.join(__dirname, 'node_modules', 'akamai-edgegrid', 'src', 'auth.js'));
// The library's logger is silent unless AKAMAI_LOG_LEVEL is set (src/logger.js): nothing of a secret is printed.

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
	let out;
	try {
		const r = JSON.parse(line);
		const req = { method: r.method, path: r.path, headers: {} };
		if (r.body) req.body = r.body;
		auth.generateAuth(req, r.client_token, r.client_secret, r.access_token, r.base, undefined, r.nonce,
			r.timestamp);
		out = { authorization: req.headers.Authorization };
	} catch (e) {
		out = { error: String(e && e.message || e) };
	}
	process.stdout.write(JSON.stringify(out) + '\n');
});
