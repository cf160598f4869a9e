// Document parse states as the UI groups them, and the documents table of a session.

import { h } from "./dom.js";

const DONE_STATES = new Set(["parsed", "ready", "succeeded", "done", "completed"]);
const FAILED_STATES = new Set(["failed", "dead", "error", "unreadable", "cancelled", "rejected"]);

export function stateGroup(state) {
  if (DONE_STATES.has(state)) return "done";
  if (FAILED_STATES.has(state)) return "failed";
  return "busy";
}

export function isSettled(doc) {
  return stateGroup(doc.state) !== "busy";
}

function statePill(state) {
  const group = stateGroup(state);
  const text = { done: "Parsed", failed: "Failed", busy: "Parsing" }[group];
  return h("span", { class: `pill pill-state-${group}`, dataset: { state } }, text);
}

export function documentsTable(documents, { onDelete }) {
  if (!documents.length) {
    return h(
      "div",
      { class: "empty" },
      h("strong", {}, "No documents yet"),
      "Upload the thesis and the PDFs of the sources it cites."
    );
  }
  const sorted = [...documents].sort(
    (a, b) => (a.kind === "thesis" ? 0 : 1) - (b.kind === "thesis" ? 0 : 1) ||
      a.filename.localeCompare(b.filename)
  );
  return h(
    "table",
    { class: "doc-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "Document"),
        h("th", {}, "Kind"),
        h("th", {}, "State"),
        h("th", { class: "col-title" }, "Pages"),
        h("th", {}, h("span", { class: "visually-hidden" }, ""))
      )
    ),
    h(
      "tbody",
      {},
      sorted.map((doc) =>
        h(
          "tr",
          { dataset: { documentId: doc.id, state: doc.state, kind: doc.kind } },
          h(
            "td",
            {},
            h("div", { class: "doc-name" }, doc.filename),
            doc.title && doc.title !== doc.filename
              ? h("div", { class: "doc-title" }, doc.title)
              : null,
            doc.error_detail || doc.error_code
              ? h("div", { class: "doc-error" }, doc.error_detail || doc.error_code)
              : null
          ),
          h("td", {}, h("span", { class: `pill pill-kind-${doc.kind}` }, doc.kind)),
          h("td", {}, statePill(doc.state)),
          h("td", { class: "col-title muted" }, doc.pages ?? "–"),
          h(
            "td",
            {},
            h(
              "button",
              {
                class: "icon-btn",
                type: "button",
                title: `Delete ${doc.filename}`,
                "aria-label": `Delete ${doc.filename}`,
                onclick: () => onDelete(doc),
              },
              "✕"
            )
          )
        )
      )
    )
  );
}
