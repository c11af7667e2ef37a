"""The proofpack commands of docs/ci.md's examples, for tests/junit_cli.rs.

usage: ci_examples.py docs/ci.md

Reads every fenced ```yaml block with PyYAML and prints, as a JSON array,
each `run:` (GitHub Actions step) or `script:` (GitLab CI job) line that
starts with `proofpack`, with the heading (## or ###) it stands under.
A block that is not YAML fails the run.
"""
import json
import sys

import yaml


def lines_of(node, out):
    """Every line of a `run:` string or `script:` list anywhere in node."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                out.extend(value.splitlines())
            elif key == "script" and isinstance(value, list):
                for item in value:
                    out.extend(str(item).splitlines())
            else:
                lines_of(value, out)
    elif isinstance(node, list):
        for item in node:
            lines_of(item, out)


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    heading, block, found = "", None, []
    for line in text.splitlines():
        if block is None:
            if line.startswith("#"):
                heading = line.lstrip("#").strip()
            elif line.strip() == "```yaml":
                block = []
        elif line.strip() == "```":
            lines = []
            lines_of(yaml.safe_load("\n".join(block)), lines)
            for cmd in lines:
                cmd = cmd.strip()
                if cmd.startswith("proofpack"):
                    found.append({"heading": heading, "command": cmd})
            block = None
        else:
            block.append(line)
    print(json.dumps(found))


if __name__ == "__main__":
    main()
