/*
 * providers/rfc2136/internal.h - internals of the rfc2136 provider, shared by its
 * files and its unit tests. Not installed; users see the backend only as
 * dnsb_backend_rfc2136 (providers/registry.h).
 *
 *   config.c   flags, TSIG key sources (secret file, BIND key file,
 *              environment), validation
 *   msg.c      the UPDATE message with its prerequisites, reply
 *              classification, RRs to RRsets
 *   net.c      transport: TCP with a timeout, a small pool of open
 *              connections, TSIG signing
 *   pipeline.c several queries over one TCP connection, pipelined
 *              (RFC 7766 §6.2.1.1): reads and culprit probes
 *   reply.c    the server's messages from their wire bytes: reply ID and
 *              TSIG checks, AXFR messages to RRs (no sockets: fuzzed)
 *   snapshot.c a zone as last transferred plus our own UPDATEs since, and
 *              a batch's prerequisites checked against it
 *   culprit.c  which changes of a batch conflict: the snapshot's answer
 *              proven by a read before sending, or named after a refusal
 *   probe.c    the first culprit of a refusal by prerequisite-only UPDATEs
 *   read.c     RRsets read back by pipelined queries
 *   rfc2136.c  the ops table: submit, read, list (AXFR), close
 */
#ifndef DNSBATCH_PROVIDERS_RFC2136_INTERNAL_H
#define DNSBATCH_PROVIDERS_RFC2136_INTERNAL_H

#include <pthread.h>
#include <sys/socket.h>

#include <ldns/ldns.h>

#include "applier/core/hmap.h"
#include "dnsbatch/sys/provider.h"

/** Name of the environment variable that may hold the TSIG secret. */
#define DNSB_RFC2136_SECRET_ENV "DNSBATCH_RFC2136_TSIG_SECRET"
/** Default --rfc2136-batch-change-size, as in external-dns. */
#define DNSB_RFC2136_BATCH_DEFAULT 100
/** Default --rfc2136-timeout, seconds. */
#define DNSB_RFC2136_TIMEOUT_DEFAULT 10.0
/** Largest DNS message over TCP (RFC 1035 §4.2.2: a 16-bit length). */
#define DNSB_RFC2136_TCP_MAX 65535
/** TSIG errors (RFC 8945 §5.2; ldns has no names for them). */
#define DNSB_RFC2136_BADSIG 16
#define DNSB_RFC2136_BADKEY 17
#define DNSB_RFC2136_BADTIME 18

/** Addresses of --rfc2136-host tried (a name may have IPv6 and IPv4 ones). */
#define DNSB_RFC2136_ADDRS_MAX 4

/** Idle TCP connections kept open per provider. */
#define DNSB_RFC2136_POOL_MAX 4

/** Default --rfc2136-snapshot-max: records a zone transfer may hold to be kept as a snapshot. */
#define DNSB_RFC2136_SNAPSHOT_DEFAULT 1000
/** A snapshot grown past this many times --rfc2136-snapshot-max by our own UPDATEs is let go. */
#define DNSB_RFC2136_SNAPSHOT_GROWTH 16

/** Queries of a pipelined exchange sent and not yet answered, at most (RFC 7766 §6.2.1.1). */
#define DNSB_RFC2136_PIPELINE_MAX 32

/** Settings of one rfc2136 provider, parsed from its flags. */
/** The rfc2136 flags (config.c): the one table of their names, kinds, defaults and help. */
extern const dnsb_flag dnsb_rfc2136_flags[];

typedef struct dnsb_rfc2136_config {
	char *host;            /**< as given (address or host name); owned */
	unsigned port;         /**< default 53 */
	char **zones;          /**< as given; owned */
	size_t zone_count;
	char *keyname;         /**< TSIG key name, absolute ("dnsbatch-key."); NULL if insecure */
	char *algorithm;       /**< ldns spelling ("hmac-sha256."); NULL if insecure */
	char *secret;          /**< base64; owned, wiped on free; NULL if insecure */
	const char *secret_source; /**< static: which source it came from, for messages */
	int insecure;          /**< --rfc2136-insecure: unsigned messages */
	size_t batch_size;     /**< --rfc2136-batch-change-size */
	size_t snapshot_max;   /**< --rfc2136-snapshot-max: records; 0 = never transfer to name culprits */
	double timeout;        /**< --rfc2136-timeout, seconds, > 0 */
} dnsb_rfc2136_config;

/**
 * Read the provider's settings from its flags and the TSIG secret from the
 * configured source. The secret never appears in err.
 * @param out  filled (the caller's; dnsb_rfc2136_config_clear)
 * @return 0; DNSB_EINVAL naming the flag; DNSB_EIO/DNSB_ENOTFOUND for an
 *         unreadable secret or key file; DNSB_ENOMEM
 */
int dnsb_rfc2136_config_parse(dnsb_rfc2136_config *out, const dnsb_config *cfg, dnsb_error *err);

/** Free what a config owns (wiping the secret) and zero it. NULL is a no-op. */
void dnsb_rfc2136_config_clear(dnsb_rfc2136_config *cfg);

/**
 * Do two domain names (a zone, a TSIG key or algorithm name) name the same
 * thing: equal but for ASCII case (RFC 4343) and a trailing dot?
 * @return 1 or 0
 */
int dnsb_rfc2136_same_name(const char *a, const char *b);

/**
 * Parse the text of a BIND key file (`key "name" { algorithm a; secret "s"; };`,
 * as tsig-keygen writes it; several keys allowed, comments too).
 * @param want     the key to take (absolute or not); NULL = the first
 * @param name, algorithm, secret  receive malloc'd strings (the caller's):
 *                 the name as written, the algorithm as written, base64
 * @param path     the file name, for messages only
 * @return 0; DNSB_EINVAL (syntax, or no such key: the message names the
 *         file and line, never the secret); DNSB_ENOMEM
 */
int dnsb_rfc2136_keyfile_parse(char **name, char **algorithm, char **secret, const char *text,
			       const char *want, const char *path, dnsb_error *err);

/**
 * Map a TSIG algorithm as people write it ("hmac-sha256", "HMAC-SHA256.",
 * "hmac-md5") to the spelling ldns computes.
 * @return a static string, or NULL for one ldns 1.8.3 cannot use (hmac-sha384
 *         is misspelt in its tsig.c; hmac-sha224 is absent)
 */
const char *dnsb_rfc2136_algorithm(const char *name);

/**
 * Build the UPDATE for a batch (RFC 2136 §2.4, §2.5): the prerequisites of
 * every change, then the update section: every deletion, then every addition.
 *   create  NONE <type> (the RRset does not exist); for other types also
 *           NONE CNAME (no CNAME at the name); for a CNAME, NONE ANY (the
 *           name is unused)
 *   update, delete  the old RRset with exactly its RDATA (value dependent,
 *           TTL ignored by the server), then ANY <type> (delete the RRset)
 * A creation whose (name, type) - or, for the CNAME rules, name - the same
 * batch removes leaves out the prerequisite the removal would break.
 * @param out      receives the unsigned packet (the caller's; ldns_pkt_free)
 * @param bad      receives the index of the change whose record ldns could
 *                 not build, or (size_t)-1 when the failure is no change's
 * @return 0; DNSB_EINVAL (the message names the record); DNSB_ENOMEM
 */
int dnsb_rfc2136_update_build(ldns_pkt **out, const char *zone, dnsb_change *const *changes, size_t n,
			      size_t *bad, dnsb_error *err);

/**
 * A prerequisite-only UPDATE (no update section: the server checks and
 * changes nothing) for changes[first, first + count), each change's
 * prerequisites exactly as in the batch's UPDATE (computed against all n).
 * Used to find which change of a failed batch conflicts.
 * @return as dnsb_rfc2136_update_build
 */
int dnsb_rfc2136_probe_build(ldns_pkt **out, const char *zone, dnsb_change *const *changes, size_t n, size_t first,
			     size_t count, dnsb_error *err);

/** One prerequisite of a change, as the UPDATE states it (dnsb_rfc2136_prereqs). */
typedef enum dnsb_rfc2136_prereq_kind {
	DNSB_RFC2136_NO_RRSET,  /**< (owner, type) holds no record (NONE <type>); else the server answers YXRRSET */
	DNSB_RFC2136_NO_NAME,   /**< owner holds no record of any type (NONE ANY); else YXDOMAIN */
	DNSB_RFC2136_EXACTLY    /**< (owner, type) holds exactly the RDATA of `exact` (value dependent); else NXRRSET */
} dnsb_rfc2136_prereq_kind;

/**
 * Told one prerequisite. owner and exact are borrowed for the call; type is
 * LDNS_RR_TYPE_ANY for DNSB_RFC2136_NO_NAME; exact is NULL but for
 * DNSB_RFC2136_EXACTLY. @return 0 to go on, non-zero to stop (returned)
 */
typedef int (*dnsb_rfc2136_prereq_fn)(dnsb_rfc2136_prereq_kind kind, const char *owner, uint16_t type,
				      const dnsb_rrset *exact, void *payload);

/**
 * The prerequisites of change `c` within the batch changes[0, n), in the
 * order the UPDATE carries them: what dnsb_rfc2136_update_build writes and
 * what a snapshot of the zone is checked against (snapshot.c).
 * @return 0; DNSB_EINVAL when the change cannot be sent (an RRset without
 *         RDATA: fn not called); or what fn returned
 */
int dnsb_rfc2136_prereqs(dnsb_change *const *changes, size_t n, const dnsb_change *c, dnsb_rfc2136_prereq_fn fn,
			 void *payload);

/** Rcode or TSIG error name ("YXRRSET", "BADSIG", "RCODE23"). Static or thread-local. */
const char *dnsb_rfc2136_rcode_name(int rcode);

/**
 * Turn an UPDATE reply into a result (the class table of issue 3).
 * @param rcode      the reply's rcode
 * @param tsig_error the TSIG error of the reply (0 if none or no TSIG)
 * @param server     "127.0.0.1#53", for messages
 */
void dnsb_rfc2136_classify(dnsb_result *res, int rcode, int tsig_error, const char *zone,
			   dnsb_change *const *changes, size_t n, const char *server);

/**
 * Append the class-IN RRs of `rrs` (only those of `only_owner` and
 * `only_type`, or every type for DNSB_RRKEY_ANY, when only_owner is not NULL) to `out` as RRsets, owner and
 * RDATA in the same canonical form as dnsb_rdata_canonical, so that they
 * compare with the plan's. Duplicates (the closing SOA of an AXFR) are
 * merged; TSIG and OPT records skipped. `rrs` is canonicalised and sorted in
 * place; `out` stays the caller's.
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_rfc2136_rrsets_from_rrs(dnsb_rrset_list *out, ldns_rr_list *rrs, const char *only_owner,
				 uint16_t only_type);

/* ---- transport (net.c) ---- */

/** Where and how to talk to the server. */
typedef struct dnsb_rfc2136_net {
	struct sockaddr_storage addr[DNSB_RFC2136_ADDRS_MAX]; /**< the host's addresses, tried in turn */
	socklen_t addrlen[DNSB_RFC2136_ADDRS_MAX];
	size_t addr_count;
	_Atomic size_t preferred;      /**< the address that answered last */
	char server[96];               /**< "127.0.0.1#53" or "ns1.example.com#53", for messages */
	struct timeval timeout;
	const char *keyname, *algorithm, *secret;  /**< borrowed from the config; NULL = unsigned */
	pthread_mutex_t lock;          /**< guards the pool */
	int pool[DNSB_RFC2136_POOL_MAX];
	size_t pool_count;
} dnsb_rfc2136_net;

/**
 * Resolve host and port (up to DNSB_RFC2136_ADDRS_MAX addresses, tried in
 * turn when connecting: "localhost" may give ::1 where nothing listens).
 * @return 0; DNSB_EINVAL naming --rfc2136-host
 */
int dnsb_rfc2136_net_init(dnsb_rfc2136_net *net, const dnsb_rfc2136_config *cfg, dnsb_error *err);

/** Close pooled connections. */
void dnsb_rfc2136_net_close(dnsb_rfc2136_net *net);

/**
 * Sign `query` (when a key is set), send it over TCP (a pooled connection
 * when one is idle), wait for the reply with the same ID, and check the
 * reply's TSIG.
 * @param limit      seconds the exchange may take when less than
 *                   --rfc2136-timeout (the engine's time left), 0 = that timeout
 * @param reply      receives the reply (the caller's), also when the TSIG
 *                   check fails (the rcode then says why: BADSIG, ...)
 * @param tsig_ok    receives 1 when the reply is signed correctly (or no key)
 * @param wire_size  receives the size of the signed message, may be NULL
 * @return 0 when a reply arrived; DNSB_ETRANSIENT (connect, send, timeout:
 *         err says which); DNSB_ETOOLARGE when the signed message exceeds
 *         64 KiB; DNSB_EINVAL/DNSB_ENOMEM for local failures
 */
int dnsb_rfc2136_exchange(dnsb_rfc2136_net *net, ldns_pkt *query, double limit, ldns_pkt **reply, int *tsig_ok,
			  size_t *wire_size, dnsb_error *err);

/**
 * Check that `query` fits a TCP message, sign it (when a key is set) and
 * encode it: what dnsb_rfc2136_exchange sends.
 * @param out        receives the message (the caller's; ldns_buffer_free), NULL on error
 * @param wire_size  receives its size in bytes, may be NULL
 * @return 0; DNSB_ETOOLARGE; DNSB_EINVAL (signing or encoding); DNSB_ENOMEM
 */
int dnsb_rfc2136_prepare(dnsb_rfc2136_net *net, ldns_pkt *query, ldns_buffer **out, size_t *wire_size,
			 dnsb_error *err);

/**
 * Send one prepared message over TCP (a pooled connection when one is idle;
 * one fresh connection after a pooled one the server closed) and read one
 * reply: its wire bytes, not checked (dnsb_rfc2136_reply_parse).
 * @param limit  seconds, as for dnsb_rfc2136_exchange
 * @param wire   receives the reply without its length prefix (the caller's; free), size its bytes
 * @return 0; DNSB_ETRANSIENT (connect, send, timeout)
 */
int dnsb_rfc2136_exchange_wire(dnsb_rfc2136_net *net, ldns_buffer *qb, double limit, uint8_t **wire, size_t *size,
			       dnsb_error *err);

/** The wait for one reply: --rfc2136-timeout, or `limit` seconds when that is less (limit > 0). */
struct timeval dnsb_rfc2136_wait_for(const dnsb_rfc2136_net *net, double limit);

/** A pooled idle connection (taken out of the pool: the caller's), or -1 when none. */
int dnsb_rfc2136_pool_take(dnsb_rfc2136_net *net);

/** Give a connection in a reusable state back to the pool (closed when the pool is full). */
void dnsb_rfc2136_pool_give(dnsb_rfc2136_net *net, int fd);

/**
 * Connect to the server's addresses in turn, within `wait`.
 * @return 0 with *fd the caller's; DNSB_ETRANSIENT naming the server
 */
int dnsb_rfc2136_connect(dnsb_rfc2136_net *net, int *fd, struct timeval wait, dnsb_error *err);

/** Write one prepared message (with its 2-byte length) to fd; SIGPIPE never raised. @return 1, or 0 (errno set) */
int dnsb_rfc2136_send(int fd, ldns_buffer *qb);

/**
 * Exchange n queries with the server over one TCP connection, pipelined
 * (RFC 7766 §6.2.1.1): at most DNSB_RFC2136_PIPELINE_MAX in flight, replies
 * matched to queries by message ID in whatever order they come, and checked
 * to answer that query's question. Each query gets an ID unique among the n
 * (among each 32,768 when more: sent as several exchanges) and is signed (when a key is set), as by
 * dnsb_rfc2136_exchange. A server that closes the connection before every
 * reply came (one that does not pipeline, or a stale pooled connection) gets
 * the rest again on a fresh connection, then one query at a time.
 * @param queries   n queries, unsigned; IDs and TSIG records are set here (borrowed)
 * @param limit     seconds the whole exchange may take, 0 = --rfc2136-timeout per reply
 * @param replies   n slots, NULL on entry: receive the replies (the caller's, ldns_pkt_free), also those
 *                  that came before an error
 * @param tsig_ok   n slots: 1 where the reply is signed correctly (or no key)
 * @return 0 when every query has its reply; DNSB_ETRANSIENT (connect, send, timeout, a malformed reply, one
 *         with an ID not in flight or another question); DNSB_ETOOLARGE; DNSB_EINVAL; DNSB_ENOMEM
 */
int dnsb_rfc2136_exchange_all(dnsb_rfc2136_net *net, ldns_pkt *const *queries, size_t n, double limit,
			      ldns_pkt **replies, int *tsig_ok, dnsb_error *err);

/**
 * Transfer a zone by AXFR (signed when a key is set) into `rrs`.
 * @param max_rrs  stop (closing the connection) once more records than this
 *                 have come; 0 = no limit
 * @return 0; DNSB_ETRANSIENT (network, SERVFAIL); DNSB_EFATAL (NOTAUTH,
 *         REFUSED, NOTZONE: the message names the rcode); DNSB_ETOOLARGE
 *         (more than max_rrs records); DNSB_ENOMEM
 */
int dnsb_rfc2136_axfr(dnsb_rfc2136_net *net, const char *zone, ldns_rr_list *rrs, size_t max_rrs, dnsb_error *err);

/* ---- a zone as last transferred, with our own UPDATEs since (snapshot.c) ---- */

/**
 * The RRsets of one zone, by (owner, type), and the types held at each owner.
 * Zeroed (DNSB_RFC2136_SNAPSHOT_INIT) is empty. Not thread-safe: the caller
 * locks. Owners are absolute and lower-case, RDATA canonical, as in
 * dnsb_rrset_list_add_ldns_rr.
 */
typedef struct dnsb_rfc2136_snapshot {
	dnsb_hmap sets;   /**< "TYPE owner" -> the RRset (owned) */
	dnsb_hmap names;  /**< owner -> the types held there (owned) */
	size_t count;     /**< RRsets held */
} dnsb_rfc2136_snapshot;

#define DNSB_RFC2136_SNAPSHOT_INIT { DNSB_HMAP_INIT, DNSB_HMAP_INIT, 0 }

/** Put an RRset in (moved: *set is zeroed), replacing the one of its (owner, type). @return 0 or DNSB_ENOMEM */
int dnsb_rfc2136_snapshot_put(dnsb_rfc2136_snapshot *snap, dnsb_rrset *set);

/** Take the RRset (owner, type) out, if held. */
void dnsb_rfc2136_snapshot_remove(dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type);

/** @return the RRset (owner, type) (borrowed until the snapshot changes), or NULL */
const dnsb_rrset *dnsb_rfc2136_snapshot_get(const dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type);

/** The types held at owner: *types borrowed until the snapshot changes. @return how many (0: the name is unused) */
size_t dnsb_rfc2136_snapshot_types(const dnsb_rfc2136_snapshot *snap, const char *owner, const uint16_t **types);

/** Empty the snapshot, freeing what it holds; it stays usable. */
void dnsb_rfc2136_snapshot_clear(dnsb_rfc2136_snapshot *snap);

/**
 * Replace the snapshot's content by a zone's RRsets.
 * @param zone  its items are moved; the list is left empty
 * @return 0, or DNSB_ENOMEM (the snapshot is left empty)
 */
int dnsb_rfc2136_snapshot_load(dnsb_rfc2136_snapshot *snap, dnsb_rrset_list *zone);

/**
 * What a committed UPDATE of changes[0, n) did, applied: each old RRset
 * removed, then each new RRset put (copied).
 * @return 0, or DNSB_ENOMEM (the snapshot is then partly updated: let it go)
 */
int dnsb_rfc2136_snapshot_commit(dnsb_rfc2136_snapshot *snap, dnsb_change *const *changes, size_t n);

/** A prerequisite a snapshot fails (dnsb_rfc2136_snapshot_check); strings borrowed from the change. */
typedef struct dnsb_rfc2136_failed {
	dnsb_rfc2136_prereq_kind kind;
	const char *owner;
	uint16_t type;
	const dnsb_rrset *exact;   /**< DNSB_RFC2136_EXACTLY: the RDATA the change expects; else NULL */
	int rcode;                 /**< what the server answers: LDNS_RCODE_YXRRSET, _YXDOMAIN, _NXRRSET; 0 = none */
} dnsb_rfc2136_failed;

/**
 * Check the prerequisites of changes[i] (within the batch changes[0, n))
 * against the snapshot, in order.
 * @param failed  receives the first one that fails (zeroed when none); may be NULL
 * @return its rcode, or 0 when all hold or the change cannot be sent (the
 *         build names it invalid)
 */
int dnsb_rfc2136_snapshot_check(const dnsb_rfc2136_snapshot *snap, dnsb_change *const *changes, size_t n, size_t i,
				dnsb_rfc2136_failed *failed);

/** Does the snapshot (refreshed since) still fail this prerequisite? @return its rcode, or 0 */
int dnsb_rfc2136_snapshot_still(const dnsb_rfc2136_snapshot *snap, const dnsb_rfc2136_failed *failed);

/**
 * Append the RRsets a failed prerequisite names to keys, to read them:
 * (owner, type), or for "the name is unused" each type the snapshot holds at
 * the owner. Owners are borrowed from the change.
 * @param keys  a growable array (DNSB_ARRAY_RESERVE): *count keys, *cap slots; the caller's (free)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_rfc2136_snapshot_keys(const dnsb_rfc2136_snapshot *snap, const dnsb_rfc2136_failed *failed,
			       dnsb_rrkey **keys, size_t *count, size_t *cap);

/* ---- reading RRsets back (read.c) ---- */

/**
 * Read RRsets: one query per key, all pipelined over one connection
 * (dnsb_rfc2136_exchange_all), each reply's rcode and TSIG checked. An NS
 * RRset at a delegation point is taken from the referral's authority section.
 * @param keys     n keys (borrowed); DNSB_RRKEY_ANY asks for every RRset at the owner
 * @param timeout  seconds for the whole read, 0 = --rfc2136-timeout per reply
 * @param out      receives the RRsets that exist (appended; the caller's)
 * @return 0; DNSB_ETRANSIENT (network, SERVFAIL, a reply not signed by the
 *         key); DNSB_EFATAL (another rcode, a TSIG error); DNSB_EINVAL (an
 *         owner that is not a name); DNSB_ENOMEM
 */
int dnsb_rfc2136_read(dnsb_rfc2136_net *net, const dnsb_rrkey *keys, size_t n, double timeout, dnsb_rrset_list *out,
		      dnsb_error *err);

/* ---- which changes of a batch conflict (culprit.c, probe.c) ---- */

/** The snapshots of a provider's zones (one per --rfc2136-zone), under one lock. */
typedef struct dnsb_rfc2136_known {
	pthread_mutex_t lock;
	const char *const *zones;     /**< borrowed: the configured zones */
	size_t count;
	dnsb_rfc2136_snapshot *snap;  /**< per zone; owned */
	int *state;                   /**< per zone: held, none yet (transfer at the next refusal), never; owned */
	size_t max;                   /**< --rfc2136-snapshot-max; 0: never transfer */
} dnsb_rfc2136_known;

/**
 * Start with no snapshot held. The zone names stay borrowed from cfg.
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_rfc2136_known_init(dnsb_rfc2136_known *known, const dnsb_rfc2136_config *cfg);

/** Free the snapshots. A known zeroed or freed already is a no-op. */
void dnsb_rfc2136_known_free(dnsb_rfc2136_known *known);

/**
 * Before sending a batch: the changes the zone's snapshot says the server
 * would refuse are read (one pipelined read of what their prerequisites
 * name; the snapshot takes what it finds). When the read confirms some,
 * `out` is a CONFLICT (code "precheck", status 0) naming each with a note,
 * and nothing is to be sent: the engine sends the rest and reads the named
 * ones again before it drops any.
 * @param timeout  seconds the read may take (the engine's time left), 0 = --rfc2136-timeout
 * @return 1 when out names culprits (do not send); 0 to send (no snapshot, none named, or the read failed)
 */
int dnsb_rfc2136_precheck(dnsb_rfc2136_known *known, dnsb_rfc2136_net *net, const char *zone,
			  dnsb_change *const *changes, size_t n, double timeout, dnsb_result *out);

/**
 * After the server refused a batch of n > 1 changes with a prerequisite
 * rcode (out is that CONFLICT): name the changes the zone's snapshot shows
 * (a snapshot that let the batch through is transferred again; a zone with
 * none is transferred now, within --rfc2136-snapshot-max records); when it
 * names none, dnsb_rfc2136_find_culprit.
 */
void dnsb_rfc2136_name_culprits(dnsb_rfc2136_known *known, dnsb_rfc2136_net *net, const char *zone,
				dnsb_change *const *changes, size_t n, dnsb_result *out);

/**
 * After the server answered an UPDATE of changes[0, n) (class cls): a
 * commit (OK) is applied to the zone's snapshot; an answer that leaves the
 * commit unknown (transient, fatal) lets the snapshot go (transferred again
 * at the next refusal); a refusal changes nothing.
 */
void dnsb_rfc2136_known_after(dnsb_rfc2136_known *known, const char *zone, dnsb_change *const *changes, size_t n,
			      dnsb_class cls);

/**
 * Binary-search prerequisite-only UPDATEs (dnsb_rfc2136_probe_build) for the
 * first change of a refused batch whose prerequisites fail, and name it in
 * `out` (classified as a refusal of that change alone). Names nothing when a
 * probe gets no trustworthy answer or another rcode.
 */
void dnsb_rfc2136_find_culprit(dnsb_rfc2136_net *net, const char *zone, dnsb_change *const *changes, size_t n,
			       dnsb_result *out);

/** "NAME TYPE (kind): what the failed prerequisite means for it" into buf. */
void dnsb_rfc2136_conflict_note(char *buf, size_t size, const dnsb_change *c, int rcode);

/* ---- the server's messages from their wire bytes (reply.c) ---- */

/** The TSIG error of a reply (0 when none or unsigned). */
int dnsb_rfc2136_tsig_error(const ldns_pkt *reply);

/**
 * Parse the reply to `query` from its wire form, check its ID, and check its
 * TSIG signature (when net has a key) against the query's: what
 * dnsb_rfc2136_exchange does with the bytes it has read.
 * @param reply    receives the reply (the caller's; ldns_pkt_free) on 0, also
 *                 when the signature does not verify, with its TSIG record
 *                 (dnsb_rfc2136_tsig_error reads it); NULL otherwise
 * @param tsig_ok  receives 1 when the reply is signed correctly (or net has
 *                 no key), 0 otherwise (also on error)
 * @param wire     the message as read, without the TCP length prefix; size
 *                 in bytes; borrowed
 * @param query    the query as sent, signed when net has a key; borrowed
 * @param net      borrowed: the key (keyname NULL = unsigned) and the server's
 *                 name for messages; its addresses and pool are not used
 * @return 0; DNSB_ETRANSIENT for a malformed message (also one with a TSIG
 *         record before its last record, which ldns would leak) or a reply
 *         with another ID than the query's (err names the server)
 */
int dnsb_rfc2136_reply_parse(ldns_pkt **reply, int *tsig_ok, const uint8_t *wire, size_t size,
			     const ldns_pkt *query, const dnsb_rfc2136_net *net, dnsb_error *err);

/**
 * A zone transfer being read, one message at a time (dnsb_rfc2136_axfr_feed).
 * Start it with DNSB_RFC2136_AXFR_STATE_INIT; it owns nothing.
 */
typedef struct dnsb_rfc2136_axfr_state {
	const dnsb_rfc2136_net *net;  /**< borrowed: the key (keyname NULL = unsigned), the server's name */
	const char *zone;             /**< borrowed: the zone, for messages */
	const ldns_pkt *query;        /**< borrowed: the AXFR query as sent, signed when net has a key */
	ldns_rr_list *rrs;            /**< borrowed: receives a copy of each answer RR, in order */
	unsigned soa;                 /**< SOA records taken so far; 2 = the transfer is complete */
	int first;                    /**< 1 until a message has been taken */
} dnsb_rfc2136_axfr_state;

/** A transfer of `zone` by `query` from net's server, appending to rrs, before its first message. */
#define DNSB_RFC2136_AXFR_STATE_INIT(net, zone, query, rrs) { (net), (zone), (query), (rrs), 0, 1 }

/**
 * Take one message of a zone transfer (RFC 5936 §2.2): parse it, check its ID
 * and rcode, and for the first message its TSIG signature (when net has a
 * key); then append copies of its answer
 * RRs to ax->rrs, up to and including the closing SOA (ax->soa reaching 2:
 * the caller stops reading); the first message must hold an SOA (the
 * opening one). Records after the closing SOA are dropped.
 * @param ax    the transfer; soa and first are updated
 * @param wire  one message, without the TCP length prefix; size in bytes;
 *              borrowed
 * @return 0; DNSB_ETRANSIENT (a malformed message, as for
 *         dnsb_rfc2136_reply_parse; another ID than the query's; SERVFAIL;
 *         a first message without an SOA); DNSB_EFATAL (another rcode:
 *         NOTAUTH, REFUSED, NOTZONE, a TSIG error; or the first message's
 *         signature does not verify); DNSB_ENOMEM. After an error the
 *         transfer is broken: feed it no more. ax->rrs may hold records of
 *         the failed message; it stays the caller's.
 */
int dnsb_rfc2136_axfr_feed(dnsb_rfc2136_axfr_state *ax, const uint8_t *wire, size_t size, dnsb_error *err);

#endif
