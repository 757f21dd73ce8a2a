// The width check's page (check-report.py --phone-page): the report in one frame per width
// (390 CSS pixels: a phone; 768 to 1920: tablets and laptops), since headless Chromium's own
// window cannot be narrower than 500 px. Once the report is laid out, each frame is measured
// (its page's width and height, every element cut at an edge or scrolling sideways inside it,
// the smallest chart text as drawn, and the first screen's lines of "At a glance"),
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
    // Anything that scrolls sideways inside the page (a table in a scrolling box), by how much.
    const scrolling = [];
    for (const element of page.querySelectorAll("body *")) {
      const overflow = frame.contentWindow.getComputedStyle(element).overflowX;
      if ((overflow === "auto" || overflow === "scroll") && element.scrollWidth > element.clientWidth) {
        scrolling.push(`${element.tagName.toLowerCase()}.${element.className} by ${element.scrollWidth - element.clientWidth} px`);
      }
    }
    // The first screen: each offering's box of "At a glance" (its background) and each of its
    // treatments' lines, with where the line ends before any scrolling.
    const glance = [...page.querySelectorAll(".overview li.glance")].map((box) => ({
      offering: box.dataset.offering,
      background: frame.contentWindow.getComputedStyle(box).backgroundColor,
      treatments: [...box.querySelectorAll(".treatment")].map((line) => {
        const part = (name) => line.querySelector("." + name)?.textContent ?? "";
        return {
          group: line.dataset.group, storedStatus: line.dataset.status, status: part("status"), goal: part("goal"),
          worth: part("worth"), when: part("when"), farEnds: part("far-ends"), bottom: line.getBoundingClientRect().bottom,
        };
      }),
    }));
    return {
      viewport, scrollWidth: page.documentElement.scrollWidth, height: page.documentElement.scrollHeight, overflowing,
      smallestChartText: smallest, scrolling, glance,
    };
  });
  for (const frame of frames) frame.style.height = frame.contentDocument.documentElement.scrollHeight + "px";
  document.body.setAttribute("data-phone-probe", JSON.stringify(results));
});
