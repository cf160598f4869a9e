// Verdict labels: display names, explanations, and order (worst findings first in filters).

export const LABELS = {
  contradicted: { name: "Contradicted", help: "The source says the opposite." },
  unsupported: { name: "Unsupported", help: "The cited source does not say this." },
  partially_supported: { name: "Partially supported", help: "The source backs part of the claim." },
  supported: { name: "Supported", help: "The source backs the claim." },
  source_missing: { name: "Source missing", help: "No uploaded document matches the reference." },
  source_unreadable: {
    name: "Source unreadable",
    help: "The matching document could not be parsed.",
  },
  not_checkable: { name: "Not checkable", help: "There is no claim to check for this marker." },
  judge_error: { name: "Judge error", help: "The judge failed; re-run to retry." },
};

export const LABEL_ORDER = Object.keys(LABELS);

export function labelName(label) {
  return LABELS[label]?.name || (label ? label.replaceAll("_", " ") : "Pending");
}

// Colours for the summary bar, kept in step with the badge palette in app.css.
export const LABEL_COLOURS = {
  supported: "#1f9d63",
  partially_supported: "#e0a030",
  unsupported: "#9aa1b1",
  contradicted: "#d23a2c",
  source_missing: "#64748b",
  source_unreadable: "#475569",
  not_checkable: "#cbd2dc",
  judge_error: "#e2e6ec",
};
