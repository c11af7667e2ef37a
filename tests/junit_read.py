"""Reads a JUnit XML file as CI tools do, for tests/junit_cli.rs.

usage: junit_read.py SCHEMA.xsd FILE.xml

Validates FILE against SCHEMA with xmlschema, reads it with junitparser and
prints one JSON object: the schema's errors, the root's counts and every
suite with its testcases (outcome, result type, message and text).
"""
import json
import sys

import junitparser
import xmlschema


def main():
    schema_path, path = sys.argv[1], sys.argv[2]
    schema = xmlschema.XMLSchema(schema_path)
    errors = [str(e.reason or e) for e in schema.iter_errors(path)]
    xml = junitparser.JUnitXml.fromfile(path)
    suites = []
    for suite in xml:
        cases = []
        for case in suite:
            results = list(case.result)
            outcome = "passed"
            if any(isinstance(r, junitparser.Failure) for r in results):
                outcome = "failure"
            elif any(isinstance(r, junitparser.Skipped) for r in results):
                outcome = "skipped"
            elif any(isinstance(r, junitparser.Error) for r in results):
                outcome = "error"
            first = results[0] if results else None
            cases.append({
                "name": case.name,
                "classname": case.classname,
                "outcome": outcome,
                "results": len(results),
                "type": first.type if first is not None else None,
                "message": first.message if first is not None else None,
                "text": first.text if first is not None else None,
            })
        suites.append({
            "name": suite.name,
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
            "timestamp": suite.timestamp,
            "cases": cases,
        })
    root = xml._elem
    print(json.dumps({
        "schema_errors": errors,
        "root": {
            "tag": root.tag,
            "name": root.get("name"),
            "tests": xml.tests,
            "failures": xml.failures,
            "errors": xml.errors,
            "time": root.get("time"),
        },
        "suites": suites,
    }))


if __name__ == "__main__":
    main()
