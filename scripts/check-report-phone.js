// The phone check's page (check-report.py --phone-page): the report in a frame 390 CSS pixels
// wide, as a phone shows it (headless Chromium's own window cannot be narrower than 500 px).
// Once the report is laid out, the frame grows to its full height for the screenshot, and the
// figures go into the DOM (body's data-phone-probe, JSON) for check-report.py.
window.addEventListener("load", () => {
  const frame = document.querySelector("iframe");
  const page = frame.contentDocument;
  const viewport = page.documentElement.clientWidth;
  const overflowing = [];
  for (const element of page.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    // Cut at the right or left edge, by the page or by a container scrolled sideways.
    if (box.right > viewport + 0.5 || box.left < -0.5) {
      const classes = typeof element.className === "string" && element.className ? "." + element.className.trim().split(/\s+/).join(".") : "";
      overflowing.push(`${element.tagName.toLowerCase()}${classes} (${Math.round(box.left)}..${Math.round(box.right)} px): ${element.textContent.trim().slice(0, 40)}`);
    }
  }
  // Chart text as drawn: its font size times the scale of its chart.
  let smallest = { size: Infinity, text: "" };
  for (const text of page.querySelectorAll("svg text")) {
    const svg = text.ownerSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const size = parseFloat(frame.contentWindow.getComputedStyle(text).fontSize) * scale;
    if (size < smallest.size) smallest = { size, text: text.textContent };
  }
  frame.style.height = page.documentElement.scrollHeight + "px";
  document.body.setAttribute("data-phone-probe", JSON.stringify({
    viewport, scrollWidth: page.documentElement.scrollWidth, overflowing, smallestChartText: smallest,
  }));
});
