#!/usr/bin/python3
"""Overwrites every packed constant of ARTIFACT with zeros, in place.

usage: corrupt_packed.py ARTIFACT INSPECT_JSON
The byte ranges come from `webnnc inspect --json` (packed_constants[].file_offset
and .bytes). Prints how many ranges it zeroed.
"""
import json
import sys

artifact, listing = sys.argv[1], json.load(open(sys.argv[2]))
data = bytearray(open(artifact, "rb").read())
packed = listing["packed_constants"]
for p in packed:
    data[p["file_offset"]:p["file_offset"] + p["bytes"]] = bytes(p["bytes"])
open(artifact, "wb").write(data)
print("zeroed %d packed constants" % len(packed))
