// A drop zone that accepts files by drag-and-drop or the file picker.

import { h } from "./dom.js";

const ACCEPT = ".pdf,.docx,.md,.markdown,.html,.htm,.txt,.tex,.zip,application/pdf";

export function dropZone({ title, hint, multiple, testId, onFiles, accept = ACCEPT }) {
  const input = h("input", { type: "file", accept, multiple, dataset: { testid: testId } });
  const zone = h(
    "label",
    { class: "dropzone", dataset: { zone: testId } },
    uploadIcon(),
    h("span", { class: "dz-title" }, title),
    h("span", { class: "small muted" }, hint),
    input
  );
  // The zone is a label (a click opens the picker); make it reachable from the keyboard too.
  zone.tabIndex = 0;
  zone.setAttribute("role", "button");
  zone.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      input.click();
    }
  });
  input.addEventListener("change", () => {
    if (input.files.length) onFiles([...input.files]);
    input.value = "";
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("is-over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("is-over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("is-over");
    const files = [...event.dataTransfer.files];
    if (files.length) onFiles(multiple ? files : files.slice(0, 1));
  });
  return zone;
}

// SVG needs its namespace, which the h() helper does not set.
function uploadIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "dz-icon");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", "M12 16V4m0 0l-4.5 4.5M12 4l4.5 4.5M4 15v3a2 2 0 002 2h12a2 2 0 002-2v-3");
  path.setAttribute("fill", "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", "1.8");
  path.setAttribute("stroke-linecap", "round");
  path.setAttribute("stroke-linejoin", "round");
  svg.append(path);
  return svg;
}
