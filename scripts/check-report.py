#!/usr/bin/env python3
"""Checks what headless Chromium made of a night's report.html (called by check-report.sh).

The expected numbers come from the run's own CSV files, formatted the way the report formats
them for people (Sources/OfferLabWriters/Output/ReportFormat.swift); the DOM must contain each of them.
The screenshots must be real renderings, not blank pages. At no width (390 CSS pixels, a phone,
to 1920) may anything be cut at either edge or scroll sideways, by the page or inside it, and on
the phone no chart text may be drawn smaller than 9 px. The first screen, 1280 × 800 CSS pixels
before any scrolling, must hold every treatment of decisions.csv: its status in words, the goal's
lift with its interval, for a period test (goal projected_arpu_365) the far ends of its
comparisons.csv row (abs_lift_bound_low/high), what shipping is worth with its currency, and for
keep_running the date (as_of + days_left); an offering's box there is green exactly when all its
treatments are decided (issues 59 and 77). Prints one line per problem.

`check-report.py --phone-page REPORT` prints the page that shows REPORT as a phone does
(scripts/check-report-phone.js).
"""
import argparse
import csv
import datetime
import html
import html.parser
import json
import re
import sqlite3
import struct
import sys
import zlib
from pathlib import Path

MINUS = "\u2212"


def fixed(value: float, decimals: int) -> str:
    text = f"{abs(value):,.{decimals}f}"
    is_zero = not any(c not in "0.," for c in text)
    return (MINUS if value < 0 and not is_zero else "") + text


def percent(ratio: float) -> str:
    return fixed(ratio * 100, 1) + "%"


def signed_percent(ratio: float) -> str:
    text = fixed(ratio * 100, 1)
    return ("+" + text if any(c in "123456789" for c in text) and not text.startswith(MINUS) else text) + "%"


def money(amount: float, currency: str) -> str:
    return f"{currency} {fixed(amount, 2)}"


def signed_money(amount: float, currency: str) -> str:
    text = fixed(amount, 2)
    return f"{currency} " + ("+" + text if any(c in "123456789" for c in text) and not text.startswith(MINUS) else text)


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
          "December")


def decision_date(night: str, days: int) -> str:
    """`14 April`, with the year when it is not the night's: as_of + days_left, as the report says it."""
    start = datetime.date.fromisoformat(night)
    day = start + datetime.timedelta(days=days)
    return f"{day.day} {MONTHS[day.month - 1]}" + ("" if day.year == start.year else f" {day.year}")


class TextCollector(html.parser.HTMLParser):
    """The page's text as a reader sees it (entities decoded), and its tags."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)

    def handle_data(self, data):
        self.parts.append(data)


def check_dom(dom_path: Path, folder: Path, database: Path) -> tuple[list[str], int]:
    """The problems found, and how many values were looked for."""
    problems = []
    checked = 0
    dom = dom_path.read_text(encoding="utf-8")
    collector = TextCollector()
    collector.feed(dom)
    text = " ".join(collector.parts)
    if "main" not in collector.tags or "section" not in collector.tags:
        return [f"{dom_path}: the DOM has no report in it ({len(dom)} bytes)"], 0
    if "script" in collector.tags:
        problems.append("the DOM contains a <script> element")
    if f"night of {folder.name}" not in text:
        problems.append(f"the title 'night of {folder.name}' is missing")

    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        currencies = dict(db.execute("SELECT offering_id, report_currency FROM offerings WHERE as_of = ?", (folder.name,)))
    if not currencies:
        problems.append(f"{database} has no offerings for {folder.name}")

    def expect(value: str, what: str) -> None:
        nonlocal checked
        checked += 1
        if value not in text:
            problems.append(f"{what}: '{value}' is not in the DOM")

    with open(folder / "summary.csv", newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            offering, group = row["offering_id"], row["group"]
            currency = currencies.get(offering, "")
            where = f"summary.csv {offering}/{group}"
            expect(offering, where + " offering_id")
            expect(group, where + " group")
            expect(fixed(int(row["users"]), 0), where + " users")
            expect(money(float(row["net_revenue"]), currency), where + " net_revenue")
            for column in ("conversion_rate", "conversion_ci_low", "conversion_ci_high", "trial_conversion_rate", "exact_proceeds_share"):
                if row[column]:
                    expect(percent(float(row[column])), f"{where} {column}")
            for column in ("arpu", "arppu", "gross_revenue", "revenue_cap", "arpu_capped"):
                if row[column]:
                    expect(money(float(row[column]), currency), f"{where} {column}")
    with open(folder / "maturity.csv", newline="", encoding="utf-8") as file:
        maturity = list(csv.DictReader(file))
    # A window no group has a user in is one line ("After 14 and 30 days: …"), not rows.
    reached = {(row["offering_id"], row["days"]) for row in maturity if int(row["users"]) > 0}
    for offering, days in sorted({(row["offering_id"], row["days"]) for row in maturity} - reached):
        checked += 1
        if not re.search(rf"After [0-9, and]*\b{days}\b[0-9, and]* days: no user", text):
            problems.append(f"maturity.csv {offering}/{days}: the empty window is not named in one line")
    for row in (row for row in maturity if (row["offering_id"], row["days"]) in reached):
        offering = row["offering_id"]
        where = f"maturity.csv {offering}/{row['group']}/{row['days']}"
        expect(f"after {row['days']} days", where + " days")
        expect(fixed(int(row["users"]), 0), where + " users")
        if row["conversion_rate"]:
            expect(percent(float(row["conversion_rate"])), where + " conversion_rate")
        if row["arpu"]:
            expect(money(float(row["arpu"]), currencies.get(offering, "")), where + " arpu")
    with open(folder / "comparisons.csv", newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            # The report quotes the intervals that agree with the verdicts (the …_adjusted columns).
            for column in ("rel_lift", "rel_lift_ci_low_adjusted", "rel_lift_ci_high_adjusted", "seq_rel_lift_ci_low_adjusted",
                           "seq_rel_lift_ci_high_adjusted"):
                if row[column]:
                    expect(signed_percent(float(row[column])), f"comparisons.csv {row['offering_id']}/{row['group']}/{row['metric']} {column}")
    with open(folder / "srm.csv", newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            if row["srm_flag"] == "true":
                expect("Sample ratio mismatch", f"srm.csv {row['offering_id']} flagged")
    return problems, checked


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and the rows of an 8-bit RGB or RGBA PNG, unfiltered."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unexpected PNG format (depth {depth}, colour type {color}, interlace {interlace})")
    channels = 3 if color == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            up_left = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 0xFF
        rows.append(bytes(line) if channels == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3))
        previous = line
    return width, height, rows


def check_screenshot(path: Path) -> list[str]:
    if not path.is_file() or path.stat().st_size == 0:
        return [f"the screenshot {path} is missing"]
    try:
        width, height, rows = png_pixels(path)
    except (ValueError, zlib.error, struct.error) as error:
        return [f"the screenshot {path} cannot be read: {error}"]
    colors, inked, total = set(), 0, 0
    for row in rows[::8]:
        for x in range(0, len(row), 3 * 4):
            pixel = row[x:x + 3]
            colors.add(pixel)
            total += 1
            inked += pixel != b"\xff\xff\xff"
    problems = []
    if len(colors) < 16:
        problems.append(f"the screenshot {path} ({width}x{height}) is blank: {len(colors)} colours")
    if total and inked / total < 0.03:
        problems.append(f"the screenshot {path} is almost empty: {100 * inked / total:.1f}% of it is not white")
    return problems


#: The first screen: the window a laptop shows before any scrolling (issue 59).
FIRST_SCREEN = (1280, 800)
#: The statuses that end a test: an offering's box at a glance is green only when all its treatments have one.
DECIDED = {"ship", "roll_back", "inconclusive", "futile"}
#: `--better-bg`, the green of a decided offering's box.
GREEN = "rgb(226, 243, 232)"


def check_first_screen(probe: dict, folder: Path, database: Path) -> tuple[list[str], int]:
    """Every (offering, treatment) of decisions.csv on the first screen: its status in words, the goal's lift
    with its interval, a period test's far ends, what shipping is worth with its currency, and for keep_running
    the expected decision date; and each offering's box green exactly when every treatment in it is decided."""
    problems, checked = [], 0
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        currencies = dict(db.execute("SELECT offering_id, report_currency FROM offerings WHERE as_of = ?", (folder.name,)))
    with open(folder / "decisions.csv", newline="", encoding="utf-8") as file:
        decisions = list(csv.DictReader(file))
    # A period test's far ends: its projected_arpu_365 comparison row's (contract §2.14).
    with open(folder / "comparisons.csv", newline="", encoding="utf-8") as file:
        far_ends = {(row["offering_id"], row["group"]): (row["abs_lift_bound_low"], row["abs_lift_bound_high"])
                    for row in csv.DictReader(file) if row["metric"] == "projected_arpu_365"}
    boxes = {box["offering"]: box for box in probe["glance"]}
    height = FIRST_SCREEN[1]
    for row in decisions:
        offering, group = row["offering_id"], row["group"]
        where = f"first screen {offering}/{group}"
        line = next((t for t in boxes.get(offering, {}).get("treatments", []) if t["group"] == group), None)
        checked += 1
        if line is None:
            problems.append(f"{where}: no line at a glance")
            continue
        if line["bottom"] > height:
            problems.append(f"{where}: its line ends at {line['bottom']:.0f} px, below the first {height} px")
        if not line["status"].strip() or "_" in line["status"] or line["storedStatus"] != row["status"]:
            problems.append(f"{where}: status '{row['status']}' reads '{line['status']}', not in words")
        expected = []
        if row["goal_rel_lift"]:
            expected.append(("goal", signed_percent(float(row["goal_rel_lift"])), "goal lift"))
        for column in ("goal_rel_lift_ci_low", "goal_rel_lift_ci_high"):
            if row[column] and abs(float(row[column])) != float("inf"):
                expected.append(("goal", signed_percent(float(row[column])), column))
        currency = currencies.get(offering, "")
        if row["impact_365"]:
            expected.append(("worth", signed_money(float(row["impact_365"]), currency), "impact_365 with its currency"))
        else:
            expected.append(("worth", "not projected", "no impact_365"))
        if row["goal_metric"] == "projected_arpu_365":
            for end, what in zip(far_ends.get((offering, group), ("", "")), ("abs_lift_bound_low", "abs_lift_bound_high")):
                if end and abs(float(end)) != float("inf"):
                    expected.append(("farEnds", signed_money(float(end), currency), f"far end {what} with its currency"))
        if row["status"] == "keep_running" and row["days_left"]:
            expected.append(("when", "about " + decision_date(folder.name, int(row["days_left"])), "decision date (as_of + days_left)"))
        for part, value, what in expected:
            checked += 1
            if value not in line[part]:
                problems.append(f"{where}: {what} '{value}' is not in '{line[part]}'")
        if "–" in line["goal"] + line["worth"]:
            problems.append(f"{where}: a dash stands for a number in '{line['goal']}' / '{line['worth']}'")
    for offering in sorted({row["offering_id"] for row in decisions}):
        checked += 1
        decided = all(row["status"] in DECIDED for row in decisions if row["offering_id"] == offering)
        green = boxes.get(offering, {}).get("background") == GREEN
        if decided != green:
            problems.append(f"first screen {offering}: its box is {'green' if green else 'not green'}, but "
                            f"{'every' if decided else 'not every'} treatment is decided")
    return problems, checked


PHONE_WIDTH = 390
#: The widths at which the page must not scroll sideways (a phone, a tablet, laptops, a desktop).
WIDTHS = (390, 768, 1024, 1280, 1366, 1440, 1920)
SMALLEST_CHART_TEXT_PX = 9
#: The sample night's page at 390 px before issue 41 (measured 2026-11-23 with this script's
#: frame: 38,767 px, about 45 phone screens); it must now be at most half of that.
PHONE_HEIGHT_BEFORE = 38767


def phone_page(report: Path, widths: list[int]) -> str:
    """The report in one frame per width, with the script that measures them."""
    script = (Path(__file__).parent / "check-report-phone.js").read_text(encoding="utf-8")
    source = html.escape(report.read_text(encoding="utf-8"), quote=True)
    frames = "".join(f'<iframe style="width:{width}px" srcdoc="{source}"></iframe>' for width in widths)
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}'
        "iframe{height:800px;border:0;display:block}</style></head><body>"
        f"{frames}<script>{script}</script></body></html>\n"
    )


def probes(dom_path: Path) -> list[dict] | None:
    """The measurements check-report-phone.js left in the DOM, one per frame; None when there are none."""
    dom = dom_path.read_text(encoding="utf-8") if dom_path.is_file() else ""
    found = re.search(r'data-phone-probe="([^"]*)"', dom)
    return json.loads(html.unescape(found.group(1))) if found else None


def probe_at(dom_path: Path, width: int) -> dict:
    """The frame of `width` (no lines at a glance when it was not measured: check_widths says so)."""
    return next((probe for probe in probes(dom_path) or [] if probe["viewport"] == width), {"glance": []})


def check_widths(dom_path: Path, widths: list[int]) -> list[str]:
    measured = probes(dom_path)
    if measured is None:
        return [f"{dom_path}: the page was not measured (no data-phone-probe)"]
    if len(measured) != len(widths):
        return [f"{dom_path}: {len(measured)} frames measured, not {len(widths)}"]
    problems = []
    for width, probe in zip(widths, measured):
        if probe["viewport"] != width:
            problems.append(f"the page is {probe['viewport']} px wide, not {width}")
        if probe["scrollWidth"] > probe["viewport"]:
            problems.append(f"at {width} px the page scrolls sideways: it is {probe['scrollWidth']} px wide")
        for element in probe["scrolling"]:
            problems.append(f"at {width} px something scrolls sideways: {element}")
        for element in probe["overflowing"][:10]:
            problems.append(f"at {width} px cut at the edge: {element}")
        if len(probe["overflowing"]) > 10:
            problems.append(f"at {width} px … and {len(probe['overflowing']) - 10} more elements cut at the edge")
        if width == PHONE_WIDTH:
            smallest = probe["smallestChartText"]
            if smallest["size"] is not None and smallest["size"] < SMALLEST_CHART_TEXT_PX:
                problems.append(f"at {width} px chart text is drawn at {smallest['size']:.1f} px ('{smallest['text']}'), under {SMALLEST_CHART_TEXT_PX} px")
            if probe["height"] > PHONE_HEIGHT_BEFORE / 2:
                problems.append(f"at {width} px the page is {probe['height']} px high, more than half of the {PHONE_HEIGHT_BEFORE} px it was before issue 41")
    return problems


def main() -> int:
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--phone-page":
        widths = [int(w) for w in sys.argv[3].split(",")] if len(sys.argv) == 4 else [PHONE_WIDTH]
        sys.stdout.write(phone_page(Path(sys.argv[2]), widths))
        return 0
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folder", type=Path, required=True, help="the night's output folder (summary.csv, report.html)")
    parser.add_argument("--database", type=Path, required=True)
    parser.add_argument("--dom", type=Path, required=True)
    parser.add_argument("--screenshot", type=Path, required=True)
    parser.add_argument("--pdf", type=Path, required=True)
    parser.add_argument("--phone-dom", type=Path, required=True, help="the DOM of the phone page after its script ran")
    parser.add_argument("--phone-screenshot", type=Path, required=True)
    parser.add_argument("--widths-dom", type=Path, required=True, help="the DOM of the page of every width after its script ran")
    arguments = parser.parse_args()
    problems, checked = check_dom(arguments.dom, arguments.folder, arguments.database)
    problems += check_screenshot(arguments.screenshot)
    problems += check_widths(arguments.phone_dom, [PHONE_WIDTH])
    problems += check_widths(arguments.widths_dom, list(WIDTHS))
    first_screen, first_screen_checked = check_first_screen(probe_at(arguments.widths_dom, FIRST_SCREEN[0]), arguments.folder,
                                                            arguments.database)
    problems += first_screen
    problems += check_screenshot(arguments.phone_screenshot)
    pdf = arguments.pdf.read_bytes() if arguments.pdf.is_file() else b""
    if not pdf.startswith(b"%PDF") or len(pdf) < 10_000:
        problems.append(f"the printed PDF {arguments.pdf} is missing or empty ({len(pdf)} bytes)")
    for problem in problems[:40]:
        print(f"check-report: {problem}", file=sys.stderr)
    if len(problems) > 40:
        print(f"check-report: … and {len(problems) - 40} more", file=sys.stderr)
    if problems:
        return 1
    print(f"check-report: the DOM holds all {checked} values from the CSV files; the screenshots are renderings; nothing is cut "
          f"or scrolls sideways at {', '.join(map(str, WIDTHS))} px; the first {FIRST_SCREEN[0]}×{FIRST_SCREEN[1]} px hold every "
          f"treatment's status, lift, far ends, worth and date ({first_screen_checked} checks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
