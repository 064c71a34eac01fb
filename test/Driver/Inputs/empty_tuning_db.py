"""Writes an empty tuning database for the fingerprint in FP_FILE (the text
that `ejk-run --fingerprint-out` writes) into CACHE/tuning/<hash>.json.

  empty_tuning_db.py FP_FILE HASH CACHE
"""
import json
import os
import sys

fingerprint_file, fingerprint_hash, cache = sys.argv[1:4]
with open(fingerprint_file) as f:
    text = f.read()
os.makedirs(os.path.join(cache, "tuning"), exist_ok=True)
with open(os.path.join(cache, "tuning", fingerprint_hash + ".json"), "w") as f:
    json.dump({"format": "ejk-tuning-db", "version": 1,
               "fingerprint_hash": fingerprint_hash, "fingerprint": text,
               "entries": {}}, f)
