"""devcheck lint --format sarif validates against the SARIF 2.1.0 schema.

Usage: sarif_check.py DEVCHECK SCHEMA. Exit 77 (skipped) when the schema
(scripts/install-deps.sh fetches it) or python3-jsonschema is missing.
"""
import json
import os
import subprocess
import sys
import tempfile

devcheck, schema_path = sys.argv[1], sys.argv[2]
try:
    import jsonschema
except ImportError:
    print("sarif_check: python3-jsonschema is missing; skipped")
    sys.exit(77)
if not os.path.exists(schema_path):
    print(f"sarif_check: no schema at {schema_path} (scripts/install-deps.sh); skipped")
    sys.exit(77)

SOURCE = """import torch
x = torch.zeros(3)
x.cuda()
state = torch.load("m.pt")
def broken(:
    pass
"""
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "train.py")
    with open(path, "w") as f:
        f.write(SOURCE)
    run = subprocess.run([devcheck, "lint", "--format", "sarif", path], capture_output=True,
                         text=True, check=False)
    assert run.returncode == 1, (run.returncode, run.stderr)
    sarif = json.loads(run.stdout)
with open(schema_path) as f:
    schema = json.load(f)
jsonschema.Draft4Validator.check_schema(schema)
errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(sarif), key=str)
for e in errors:
    print("sarif_check:", "/".join(str(p) for p in e.absolute_path), e.message)
results = sarif["runs"][0]["results"]
rules = {r["ruleId"] for r in results}
assert {"DC100", "DC102", "DC105"} <= rules, rules
print(f"sarif_check: {len(results)} results, {len(errors)} schema errors")
sys.exit(1 if errors else 0)
