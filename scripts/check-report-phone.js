// The width check's page (check-report.py --phone-page): the report in one frame per width
// (390 CSS pixels: a phone; 768 to 1920: tablets and laptops), since headless Chromium's own
// window cannot be narrower than 500 px. Once the report is laid out, each frame is measured
// (its page's width and height, every element cut at an edge, the smallest chart text as drawn),
// then grown to its full height for the screenshot, and the figures go into the DOM (body's
// data-phone-probe, a JSON list in frame order) for check-report.py.
window.addEventListener("load", () => {
  const frames = [...document.querySelectorAll("iframe")];
  const results = frames.map((frame) => {
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
    return {
      viewport, scrollWidth: page.documentElement.scrollWidth, height: page.documentElement.scrollHeight, overflowing,
      smallestChartText: smallest,
    };
  });
  for (const frame of frames) frame.style.height = frame.contentDocument.documentElement.scrollHeight + "px";
  document.body.setAttribute("data-phone-probe", JSON.stringify(results));
});
