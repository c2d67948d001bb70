#!/usr/bin/env python3
"""r53_refusals.py URL CA KEY SECRET ZONEID - ask tests/fakes/fake_route53.py, with
botocore's own Route53 client, for what dnsbatch never sends (its plan parser
refuses or rewrites it first): prints one line per case, "NAME CODE MESSAGE"
for a refusal, "NAME ok DETAIL" for an answer (test_aws_refusals.sh compares).
"""
import sys
import xml.etree.ElementTree as ET

import botocore.session
from botocore.exceptions import ClientError


BODIES = []


def keep_body(http_response, **kwargs):
    BODIES.append(http_response.content)


def change(client, zone, *changes):
    """botocore's error parser reads <ErrorResponse>; an <InvalidChangeBatch> reply's messages are read here."""
    batch = {"Changes": [{"Action": a, "ResourceRecordSet": rs} for a, rs in changes]}
    try:
        client.change_resource_record_sets(HostedZoneId=zone, ChangeBatch=batch)
        return "ok -"
    except ClientError as e:
        root = ET.fromstring(BODIES[-1])
        msgs = [m.text for m in root.iter() if m.tag.split("}")[-1] == "Message"]
        return "%s %s" % (root.tag.split("}")[-1], " | ".join(msgs))


def rrset(name, rtype, *values):
    return {"Name": name, "Type": rtype, "TTL": 300, "ResourceRecords": [{"Value": v} for v in values]}


def main():
    url, ca, key, secret, zone = sys.argv[1:6]
    session = botocore.session.get_session()
    client = session.create_client("route53", region_name="us-east-1", endpoint_url=url, verify=ca,
                                   aws_access_key_id=key, aws_secret_access_key=secret)
    client.meta.events.register("after-call.route53.ChangeResourceRecordSets", keep_body)
    print("a-not-ipv4", change(client, zone, ("CREATE", rrset("bad.example.com", "A", "192.0.2.300"))))
    print("txt-unquoted", change(client, zone, ("CREATE", rrset("t.example.com", "TXT", "hello world"))))
    print("txt-quoted", change(client, zone, ("CREATE", rrset("t.example.com", "TXT", '"hello" "world"'))))
    # 600 records an UPSERT counts twice: 1,200 against the limit of 1,000.
    many = ["192.0.2.%d" % (i % 250 + 1) for i in range(600)]
    print("upsert-600", change(client, zone, ("UPSERT", rrset("u.example.com", "A", *many))))
    print("create-600", change(client, zone, ("CREATE", rrset("u.example.com", "A", *many))))
    ns = client.list_resource_record_sets(HostedZoneId=zone, StartRecordName="example.com", StartRecordType="NS",
                                          MaxItems="1")["ResourceRecordSets"][0]
    print("apex-ns-delete", change(client, zone, ("DELETE", ns)))
    first = client.list_hosted_zones(MaxItems="1")
    print("zones-first-page", "ok", "Marker=%r" % first.get("Marker"))
    try:
        client.list_hosted_zones(Marker="ZNOSUCHZONE")
        print("zones-unknown-marker ok -")
    except ClientError as e:
        print("zones-unknown-marker", e.response["Error"].get("Code"), e.response["Error"].get("Message"))


if __name__ == "__main__":
    main()
