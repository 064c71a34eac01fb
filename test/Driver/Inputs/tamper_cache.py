"""Edits a cache the way an accident or a careless tool could, keeping the
hashes consistent so that only the cross-checks can notice.

  tamper_cache.py library CACHE VALUE
      sets every entry manifest's "library" to VALUE and rewrites the
      entry's entry.json hashes to match
  tamper_cache.py index CACHE FROM_KEY_OF_FILE TO_KEY_OF_FILE
      points the source-index records of artifact key K1 at artifact key K2,
      where K1 and K2 are read from the one-line files given, and rewrites
      the record's header hash
"""
import hashlib
import json
import os
import sys

mode, cache = sys.argv[1:3]
artifacts = os.path.join(cache, "artifacts")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


if mode == "library":
    value = sys.argv[3]
    for key in os.listdir(artifacts):
        entry = os.path.join(artifacts, key)
        if len(key) != 32 or not os.path.isdir(entry):
            continue
        manifest_path = os.path.join(entry, "kernel.json")
        with open(manifest_path) as f:
            manifest = json.load(f)
        manifest["library"] = value
        data = json.dumps(manifest).encode()
        with open(manifest_path, "wb") as f:
            f.write(data)
        meta_path = os.path.join(entry, "entry.json")
        with open(meta_path) as f:
            meta = json.load(f)
        for record in meta["files"]:
            if record["name"] == "kernel.json":
                record["size"] = len(data)
                record["sha256"] = sha256(data)
        with open(meta_path, "w") as f:
            json.dump(meta, f)
elif mode == "index":
    with open(sys.argv[3]) as f:
        old = f.read().split()[0]
    with open(sys.argv[4]) as f:
        new = f.read().split()[0]
    index = os.path.join(artifacts, "source-index")
    for name in os.listdir(index):
        path = os.path.join(index, name)
        with open(path) as f:
            header, body = f.read().split("\n", 1)
        record = json.loads(body)
        if record["artifact_key"] != old:
            continue
        record["artifact_key"] = new
        body = json.dumps(record) + "\n"
        with open(path, "w") as f:
            f.write("ejk-source-index 1 " + sha256(body.encode()) + "\n" + body)
else:
    sys.exit("unknown mode " + mode)
