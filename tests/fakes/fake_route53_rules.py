"""fake_route53_rules.py - what Route53 refuses in a ChangeResourceRecordSets
request that botocore's model lets through, for tests/fakes/fake_route53.py.

A hosted zone as Route53 creates it (an SOA and four NS records at the apex),
the per-request limits as AWS counts them (every ResourceRecord element and
the characters of every Value; an UPSERT counts twice, a DELETE and a CREATE
once each: Route 53 quotas, "Maximum number of ResourceRecord elements" and
"Maximum number of characters in all Value elements"), and the value checks
Route53 makes, each refusal with the message text AWS's replies carry (as
quoted in issue reports: external-dns #515, ansible #6112, gomodules/dns #7,
kube-aws #1443). The CloudFront health refusal's wording follows the alias
message's head and the AliasTarget API reference's rule ("you can't set
EvaluateTargetHealth to true when the alias target is a CloudFront
distribution"); no captured reply of it was found.
"""
import ipaddress
import re

MAX_RECORDS = 1000
MAX_VALUE_CHARS = 32000
CLOUDFRONT_ZONE = "Z2FDTNDATAQYW2"

# Route53's SOA and NS of a new hosted zone (the name servers of its delegation set).
APEX_NS_TTL, APEX_SOA_TTL = 172800, 900
APEX_NS = ["ns-2048.awsdns-64.com.", "ns-512.awsdns-00.net.", "ns-1024.awsdns-00.org.", "ns-1536.awsdns-00.co.uk."]
APEX_SOA = "ns-2048.awsdns-64.com. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"


def apex_rrsets(apex):
    """The RRsets Route53 puts at a new zone's apex: {(name, type): {"ttl", "values"}}."""
    return {(apex, "NS"): {"ttl": APEX_NS_TTL, "values": list(APEX_NS)},
            (apex, "SOA"): {"ttl": APEX_SOA_TTL, "values": [APEX_SOA]}}


def apex_problems(apex, rrsets):
    """What a batch leaving the apex without its SOA or NS is refused with (zonify #1 quotes the NS one)."""
    msgs = []
    if (apex, "SOA") not in rrsets:
        msgs.append("A HostedZone must contain exactly one SOA record.")
    if (apex, "NS") not in rrsets:
        msgs.append("A HostedZone must contain at least one NS record for the zone itself.")
    return msgs


def limit_problems(changes):
    """The request's size against Route53's limits: a list of messages (empty when within them).
    changes: (action, values) pairs."""
    records = chars = 0
    for action, values in changes:
        times = 2 if action == "UPSERT" else 1
        records += times * len(values)
        chars += times * sum(len(v) for v in values)
    msgs = []
    if records > MAX_RECORDS:
        msgs.append("Number of records limit of %d exceeded." % MAX_RECORDS)
    if chars > MAX_VALUE_CHARS:
        msgs.append("RDATA character limit of %d exceeded." % MAX_VALUE_CHARS)
    return msgs


# One or more <character-string>s in double quotes, separated by spaces; \" and \\ escaped inside.
QUOTED = re.compile(r'^"(?:[^"\\]|\\.)*"(?: +"(?:[^"\\]|\\.)*")*$')
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def fatal(code, text, value):
    return "Invalid Resource Record: FATAL problem: %s (%s) encountered with '%s'" % (code, text, value)


def value_problem(rtype, value):
    """Route53's refusal of one Value of an RRset of type rtype, or None."""
    if rtype == "A":
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            return fatal("ARRDATAIllegalIPv4Address", "Value is not a valid IPv4 address", value)
    elif rtype == "AAAA":
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            return fatal("AAAARRDATAIllegalIPv6Address", "Value is not a valid IPv6 address", value)
    elif rtype in ("TXT", "SPF"):
        if not QUOTED.match(value):
            return fatal("InvalidCharacterString", "Value should be enclosed in quotation marks", value)
        if any(len(re.sub(r"\\(.)", r"\1", s)) > 255 for s in STRING.findall(value)):
            return fatal("CharacterStringTooLong", "Value is too long", value)
    return None


def rrset_problem(apex, name, rtype, shown, alias):
    """Route53's refusal of a new RRset for what it is, whatever the zone holds, or None."""
    if rtype == "CNAME" and name == apex:
        return "RRSet of type CNAME with DNS name %s is not permitted at apex in zone %s" % (shown, apex)
    if alias and alias["zone"] == CLOUDFRONT_ZONE and alias["health"] == "true":
        return ("Tried to create an alias that targets %s, type %s in zone %s, but EvaluateTargetHealth cannot be "
                "true when the alias target is a CloudFront distribution" % (alias["dns"], rtype, alias["zone"]))
    return None


# A set's routing policy: exactly one of these (MultiValueAnswer only when true), and only with a SetIdentifier
# (Route53 API reference, ResourceRecordSet; the message as Route53's InvalidInput replies word it).
POLICIES = ("Weight", "Region", "Failover", "GeoLocation", "MultiValueAnswer", "GeoProximityLocation",
            "CidrRoutingConfig")
# A GeoProximityLocation names exactly one of these (the API reference: "AWSRegion, LocalZoneGroup, or Coordinates").
LOCATIONS = ("AWSRegion", "LocalZoneGroup", "Coordinates")


def routing_problem(rs, action, q):
    """Route53's InvalidInput for a ResourceRecordSet element's routing policy, or None. q: tag -> namespaced tag."""
    sid = rs.findtext(q("SetIdentifier"))
    found = [p for p in POLICIES if rs.find(q(p)) is not None and
             (p != "MultiValueAnswer" or rs.findtext(q(p)) == "true")]
    where = "in Change with [Action=%s, Name=%s, Type=%s, SetIdentifier=%s]" % (
        action, rs.findtext(q("Name")), rs.findtext(q("Type")), sid if sid is not None else "null")
    if sid is not None and len(found) != 1:
        return ("Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, "
                "GeoProximityLocation, or CidrRoutingConfig], but found %s %s" %
                ("none" if not found else "more than one", where))
    if sid is None and found:
        return "Invalid request: Missing field 'SetIdentifier' %s" % where
    near = rs.find(q("GeoProximityLocation"))
    if near is not None and sum(near.find(q(m)) is not None for m in LOCATIONS) != 1:
        return ("Invalid request: Expected exactly one of [AWSRegion, LocalZoneGroup, Coordinates] in "
                "GeoProximityLocation %s" % where)
    coords = near.find(q("Coordinates")) if near is not None else None
    if coords is not None:
        try:
            lat, lon = float(coords.findtext(q("Latitude"))), float(coords.findtext(q("Longitude")))
        except (TypeError, ValueError):
            lat = lon = 1000.0
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            return "Invalid request: invalid Coordinates %s" % where
    return None
