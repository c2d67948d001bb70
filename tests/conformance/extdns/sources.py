#!/usr/bin/env python3
"""sources.py - the endpoints external-dns v0.22's sources make for one provider's round trip (zone example.com).

Usage: sources.py PROVIDER    (zonefile memory bind knot pdns google route53 cloudflare azure akamai digitalocean)

Every record type external-dns v0.22 writes for that provider (provider/recordfilter.go's SupportedRecordType: A,
AAAA, CNAME, SRV, TXT, NS, with MX added by the aws, google, cloudflare, azure and digitalocean providers and NAPTR by
aws; the DNS servers, zone file and memory store take every type, so MX there too), each as a source makes it: labels
{"resource": ...}, a TTL where an annotation sets one, and the providerSpecific external-dns names:
  - one endpoint whose resource name is long, so that its ownership TXT value is over 255 octets (a long ingress name);
  - a TTL of 30 s (external-dns's ttl annotation; Cloudflare stores 2-59 as automatic);
  - route53: an alias A (alias=true, aws/evaluate-target-health) to a load balancer, a weighted pair (setIdentifier,
    aws/weight), a geoproximity set (aws/geoproximity-region, aws/geoproximity-bias) and a multi-value answer
    (aws/multi-value-answer, present without a value), each copied by the TXT registry onto its ownership TXT;
  - cloudflare: a proxied A (external-dns.alpha.kubernetes.io/cloudflare-proxied=true, no TTL) and a record comment.
"""
import json
import sys

PROVIDERS = ("zonefile", "memory", "bind", "knot", "pdns", "google", "route53", "cloudflare", "azure", "akamai",
             "digitalocean")


def ep(name, rtype, targets, ttl=300, resource=None, props=None, set_id=None):
    out = {"dnsName": name + ".example.com", "targets": targets, "recordType": rtype,
           "labels": {"resource": resource or "ingress/default/" + name.replace(".", "-").strip("_-")}}
    if ttl:
        out["recordTTL"] = ttl
    if set_id:
        out["setIdentifier"] = set_id
    if props:
        out["providerSpecific"] = [{"name": k, "value": v} for k, v in props]
    return out


def common():
    return [
        ep("web", "A", ["192.0.2.10", "192.0.2.11"]),
        ep("web6", "AAAA", ["2001:db8::10"]),
        ep("app", "CNAME", ["web.example.com"]),
        ep("info", "TXT", ["v=spf1 include:_spf.example.net -all"]),
        ep("_sip._tcp", "SRV", ["10 60 5060 sip.example.com"]),
        ep("sub", "NS", ["ns1.example.net", "ns2.example.net"]),
        ep("mail", "MX", ["10 mx1.example.net", "20 mx2.example.net"]),
        ep("short", "A", ["192.0.2.30"], ttl=30),
        ep("long", "A", ["192.0.2.31"], resource="ingress/default/" + "r" * 300),
    ]


def route53():
    return [
        ep("naptr", "NAPTR", ['100 10 "S" "SIP+D2U" "" _sip._udp.example.com.']),
        ep("lb", "A", ["my-lb-1234567890.us-east-1.elb.amazonaws.com"], ttl=0,
           props=[("alias", "true"), ("aws/evaluate-target-health", "true")]),
        ep("weighted", "A", ["192.0.2.40"], set_id="blue", props=[("aws/weight", "10")]),
        ep("weighted", "A", ["192.0.2.41"], set_id="green", props=[("aws/weight", "90")]),
        ep("geo", "A", ["192.0.2.50"], set_id="eu",
           props=[("aws/geoproximity-region", "eu-west-1"), ("aws/geoproximity-bias", "10")]),
        ep("multi", "A", ["192.0.2.60"], set_id="one", props=[("aws/multi-value-answer", "")]),
    ]


def cloudflare():
    return [
        ep("proxied", "A", ["192.0.2.70"], ttl=0,
           props=[("external-dns.alpha.kubernetes.io/cloudflare-proxied", "true")]),
        ep("commented", "A", ["192.0.2.71"],
           props=[("external-dns.alpha.kubernetes.io/cloudflare-record-comment", "owned-by-team-a")]),
    ]


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in PROVIDERS:
        sys.exit(__doc__.split("\n\n")[1])
    prov = sys.argv[1]
    out = common() + {"route53": route53, "cloudflare": cloudflare}.get(prov, list)()
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
