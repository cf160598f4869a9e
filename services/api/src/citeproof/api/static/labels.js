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

// Finding rules, severities and risk bands, also from the pipeline contract (GET /rules): the
// names, help texts and colours of CP101, "error", "likely problem" are never copied here.
async function loadRules() {
  try {
    const response = await fetch("/rules", { headers: { Accept: "application/json" } });
    if (response.ok) return await response.json();
  } catch {
    /* as above: the views fall back to what the report itself carries */
  }
  return { rules: [], severities: [], bands: [], origins: {} };
}

const RULE_CATALOGUE = await loadRules();

// code -> {code, slug, severity, subject, name, summary, fix, label, doc}
export const RULES = Object.fromEntries(RULE_CATALOGUE.rules.map((rule) => [rule.code, rule]));
// Worst first.
export const SEVERITIES = RULE_CATALOGUE.severities;
// Worst first, then the key for citations no judge placed in a band.
export const BANDS = RULE_CATALOGUE.bands;

// Where a finding's evidence comes from, named for a person.
export function originName(origin) {
  return RULE_CATALOGUE.origins?.[origin] || origin;
}

// The verdict label a finding stands for (a missing source is reported as its rule's finding).
export function labelOfFindings(findings) {
  for (const finding of findings || []) {
    const label = RULES[finding.rule]?.label;
    if (label) return label;
  }
  return null;
}
