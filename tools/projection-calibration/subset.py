#!/usr/bin/env python3
"""A simulated setting's first N tests as a data set of its own, for a study that cannot afford
`offerlab run` on all of them (the nights' cost grows with the tests; the members of test k are
the same whatever N): the offering tables, truth.csv and expected.csv keep the first N tests'
rows, the jobs read only those tests' past, and the logs are linked, not copied (`offerlab run`
reads every log line, but only the listed offerings' members are projected).

    python3 subset.py --data DIR/setting --tests N --out OUT/setting
"""
import argparse
import csv
import glob
import os
import re


def copy_rows(source, target, keep):
    with open(source, newline="") as f:
        rows = list(csv.reader(f))
    with open(target, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(rows[0])
        w.writerows(row for row in rows[1:] if keep(dict(zip(rows[0], row))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--tests", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    offerings = {f"test_{t:04d}" for t in range(args.tests)}
    os.makedirs(os.path.join(args.out, "tables"), exist_ok=True)
    tables = os.path.join(args.data, "tables")
    # Offering ids are 1…N in test order, groups numbered within them (simulate.py).
    copy_rows(os.path.join(tables, "subscription_offerings.csv"), os.path.join(args.out, "tables", "subscription_offerings.csv"),
              lambda r: r["offering_id"] in offerings)
    kept_offerings = {str(t + 1) for t in range(args.tests)}
    groups = set()

    def keep_group(r):
        if r["subscription_offering_id"] in kept_offerings:
            groups.add(r["id"])
            return True
        return False

    copy_rows(os.path.join(tables, "subscription_offering_groups.csv"), os.path.join(args.out, "tables", "subscription_offering_groups.csv"),
              keep_group)
    for name in ("subscription_offering_group_products.csv", "subscription_offering_group_copy.csv"):
        copy_rows(os.path.join(tables, name), os.path.join(args.out, "tables", name), lambda r: r["offering_group_id"] in groups)
    copy_rows(os.path.join(tables, "user_offering_assignments.csv"), os.path.join(args.out, "tables", "user_offering_assignments.csv"),
              lambda r: r["subscription_offering_id"] in kept_offerings)
    for name in ("truth.csv", "expected.csv"):
        if os.path.exists(os.path.join(args.data, name)):
            copy_rows(os.path.join(args.data, name), os.path.join(args.out, name), lambda r: r["offering_id"] in offerings)
    link = os.path.join(args.out, "logs")
    if not os.path.exists(link):
        os.symlink(os.path.abspath(os.path.join(args.data, "logs")), link)
    history = sorted(glob.glob(os.path.join(args.data, "history", "past-test_*.jsonl.gz")))
    kept_history = [path for path in history if re.search(r"past-(test_\d{4})\.", path).group(1) in offerings]
    if kept_history:
        os.makedirs(os.path.join(args.out, "history"), exist_ok=True)
        for path in kept_history:
            target = os.path.join(args.out, "history", os.path.basename(path))
            if not os.path.exists(target):
                os.symlink(os.path.abspath(path), target)
    for job in glob.glob(os.path.join(args.data, "job-day*.yaml")):
        with open(job) as f:
            text = f.read()
        with open(os.path.join(args.out, os.path.basename(job)), "w") as f:
            f.write(text.replace("\ntables:", f"\n# The first {args.tests} tests (subset.py).\ntables:", 1))


if __name__ == "__main__":
    main()
