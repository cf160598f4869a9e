// Verdict labels: display names, explanations, colours and order (worst findings first in
// filters). The API serves them from the pipeline contract (GET /labels), so a label added on
// the server shows up here with its name; nothing is copied into this file.

async function loadLabels() {
  try {
    const response = await fetch("/labels", { headers: { Accept: "application/json" } });
    if (response.ok) return await response.json();
  } catch {
    /* offline or server down: the views fall back to the raw label text */
  }
  return [];
}

const CATALOGUE = await loadLabels();

export const LABELS = Object.fromEntries(
  CATALOGUE.map((entry) => [entry.label, { name: entry.name, help: entry.description }])
);

export const LABEL_ORDER = CATALOGUE.map((entry) => entry.label);

export function labelName(label) {
  return LABELS[label]?.name || (label ? label.replaceAll("_", " ") : "Pending");
}

// Colours for the summary bar.
export const LABEL_COLOURS = Object.fromEntries(
  CATALOGUE.map((entry) => [entry.label, entry.bar_colour])
);
