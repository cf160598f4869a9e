// The verification report: summary, verdict filters and one card per citation.

import { api } from "./api.js";
import { formatDate, h, mount, saveResponse, toast } from "./dom.js";
import { LABEL_COLOURS, LABEL_ORDER, LABELS, labelName } from "./labels.js";
import { sourcePicker } from "./overrides.js";

const DOWNLOADS = [
  ["json", "JSON", "json"],
  ["markdown", "Markdown", "md"],
  ["html", "HTML", "html"],
];

export function verdictBadge(label) {
  const key = label || "pending";
  return h(
    "span",
    { class: `badge badge-${key}`, title: LABELS[key]?.help || "", dataset: { label: key } },
    labelName(label)
  );
}

// The claim with its marker highlighted (the first occurrence of the marker text).
function claimWithMarker(claim, marker) {
  const at = marker ? claim.indexOf(marker) : -1;
  if (at < 0) return [claim];
  return [
    claim.slice(0, at),
    h("mark", { class: "marker" }, marker),
    claim.slice(at + marker.length),
  ];
}

function confidence(value) {
  if (typeof value !== "number") return null;
  const pct = Math.round(value * 100);
  return h(
    "div",
    { class: "confidence", title: "Judge confidence" },
    h("div", { class: "bar" }, h("span", { style: { width: `${pct}%` } })),
    `${pct}%`
  );
}

function citationCard(citation, context) {
  const verdict = citation.verdict || {};
  const label = verdict.label || null;
  const source = citation.source;
  const reference = citation.reference || {};
  const evidence = [];
  if (verdict.quote) {
    evidence.push(
      h(
        "blockquote",
        { class: "quote" },
        `“${verdict.quote}”`,
        verdict.quote_page != null ? h("span", { class: "page" }, `p. ${verdict.quote_page}`) : null
      )
    );
  }
  if (verdict.rationale) evidence.push(h("p", { class: "rationale" }, verdict.rationale));
  if (verdict.downgrade_reason) {
    evidence.push(h("p", { class: "downgrade" }, `Adjusted: ${verdict.downgrade_reason}`));
  }
  // reference_missing: the entries the marker nearly named, shown so the author can fix the
  // marker or the list; citeproof never links to them.
  const candidates = citation.candidates || [];
  if (candidates.length) {
    evidence.push(
      h(
        "div",
        { class: "candidates" },
        h("span", { class: "label" }, "No entry matches this marker; closest entries (not linked)"),
        h(
          "ul",
          {},
          candidates.map((entry) =>
            h("li", {}, h("span", { class: "mono" }, `[${entry.label}] `), entry.raw || "")
          )
        )
      )
    );
  }
  return h(
    "article",
    {
      class: "card citation",
      dataset: { label: label || "pending", citationId: citation.citation_id },
    },
    h(
      "div",
      { class: "citation-body" },
      h(
        "div",
        { class: "citation-meta" },
        h("span", { class: "ordinal" }, `#${citation.ordinal}`),
        h("span", { class: "pill mono" }, citation.marker),
        citation.page != null ? h("span", {}, `thesis p. ${citation.page}`) : null,
        reference.label ? h("span", {}, `reference ${reference.label}`) : null
      ),
      h("p", { class: "claim" }, claimWithMarker(citation.claim || "", citation.marker)),
      h(
        "div",
        { class: "verdict-side" },
        verdictBadge(label),
        confidence(verdict.confidence)
      ),
      h(
        "div",
        { class: "source-line" },
        h("span", { class: "label" }, "Source"),
        source
          ? h("span", {}, source.title || source.filename)
          : h("span", { class: "none" }, "No uploaded source matches this reference"),
        !source && reference.raw ? h("span", { class: "reference-raw" }, reference.raw) : null,
        context.sessionId && reference.label
          ? sourcePicker({
              sessionId: context.sessionId,
              thesisId: context.thesisId,
              citation,
              onSaved: context.onOverride,
            })
          : null
      ),
      evidence.length ? h("div", { class: "evidence" }, evidence) : null
    )
  );
}

function healthBar(counts, total) {
  return h(
    "div",
    { class: "health", "aria-hidden": "true" },
    LABEL_ORDER.filter((label) => counts[label]).map((label) =>
      h("span", {
        title: `${labelName(label)}: ${counts[label]}`,
        style: { width: `${(100 * counts[label]) / total}%`, background: LABEL_COLOURS[label] },
      })
    )
  );
}

// `context`: {sessionId, thesisId, rerun} — enables correcting source links and re-running.
export function renderReport(container, runId, report, context = {}) {
  const citations = [...report.citations].sort((a, b) => a.ordinal - b.ordinal);
  const counts = report.summary?.counts || {};
  const total = report.summary?.total ?? citations.length;
  const present = LABEL_ORDER.filter((label) => counts[label]);
  let filter = null;
  let query = "";

  const list = h("div", { class: "citations", id: "citations" });
  const chips = h("div", { class: "row" });
  const tiles = h("div", { class: "summary" });
  const rerunBar = h("div", { class: "alert alert-warn rerun", hidden: true });
  const cardContext = {
    sessionId: context.sessionId,
    thesisId: context.thesisId || report.thesis?.id,
    onOverride: showRerun,
  };

  function showRerun() {
    if (!rerunBar.hidden || !context.rerun) return;
    const button = h("button", { class: "btn btn-small", type: "button" }, "Re-run verification");
    button.addEventListener("click", () => {
      button.disabled = true;
      context.rerun().catch((err) => {
        toast(err.detail, { error: true });
        button.disabled = false;
      });
    });
    rerunBar.replaceChildren(
      h("span", {}, "Source links changed. Re-run to check the affected citations again."),
      button
    );
    rerunBar.hidden = false;
  }

  function matches(citation) {
    if (filter && (citation.verdict?.label || "pending") !== filter) return false;
    if (!query) return true;
    const haystack = [
      citation.claim,
      citation.marker,
      citation.source?.title,
      citation.source?.filename,
      citation.reference?.raw,
      citation.verdict?.quote,
    ]
      .join(" ")
      .toLowerCase();
    return haystack.includes(query);
  }

  function setFilter(label) {
    filter = filter === label ? null : label;
    draw();
  }

  function draw() {
    const shown = citations.filter(matches);
    mount(
      list,
      shown.length
        ? shown.map((citation) => citationCard(citation, cardContext))
        : h("div", { class: "card empty" }, "No citations match this filter.")
    );
    mount(
      chips,
      h(
        "button",
        { class: `chip${filter ? "" : " is-active"}`, onclick: () => setFilter(null) },
        "All",
        h("span", { class: "count" }, total)
      ),
      present.map((label) =>
        h(
          "button",
          {
            class: `chip${filter === label ? " is-active" : ""}`,
            dataset: { filter: label },
            onclick: () => setFilter(label),
          },
          labelName(label),
          h("span", { class: "count" }, counts[label])
        )
      )
    );
    mount(
      tiles,
      h(
        "button",
        { class: "summary-tile", onclick: () => setFilter(null) },
        h("span", { class: "n" }, total),
        h("span", { class: "t" }, "Citations checked")
      ),
      present.map((label) =>
        h(
          "button",
          {
            class: `summary-tile${filter === label ? " is-active" : ""}`,
            dataset: { label },
            title: LABELS[label]?.help,
            onclick: () => setFilter(label),
          },
          h("span", { class: "n" }, counts[label]),
          h("span", { class: "t" }, labelName(label))
        )
      )
    );
  }

  async function download(format, extension) {
    try {
      const response = await api.reportFile(runId, format);
      await saveResponse(response, `citeproof-report-${runId}.${extension}`);
    } catch (err) {
      toast(err.detail, { error: true });
    }
  }

  const search = h("input", {
    type: "search",
    placeholder: "Search citations…",
    "aria-label": "Search citations",
    oninput: () => {
      query = search.value.trim().toLowerCase();
      draw();
    },
  });

  const thesis = report.thesis || {};
  const finishedAt = report.run?.finished_at;
  mount(
    container,
    h(
      "section",
      { class: "card", id: "report" },
      h(
        "div",
        { class: "report-head" },
        h(
          "div",
          {},
          h("div", { class: "crumbs" }, "Report"),
          h("h2", { class: "report-title" }, thesis.title || thesis.filename || "Thesis"),
          h(
            "p",
            { class: "small muted" },
            [thesis.filename, finishedAt && `checked ${formatDate(finishedAt)}`]
              .filter(Boolean)
              .join(" · ")
          )
        ),
        h(
          "div",
          { class: "row" },
          DOWNLOADS.map(([format, name, extension]) =>
            h(
              "button",
              {
                class: "btn btn-ghost btn-small",
                dataset: { download: format },
                onclick: () => download(format, extension),
              },
              `↓ ${name}`
            )
          )
        )
      ),
      tiles,
      total ? healthBar(counts, total) : null
    ),
    h("div", { class: "filters" }, chips, search),
    rerunBar,
    list
  );
  draw();
}
