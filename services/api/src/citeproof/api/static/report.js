// The verification report: the headline, band and severity tiles, the problems found, filters,
// one card per citation (most doubtful first, each finding with its evidence) and the reference
// list's findings.

import { api } from "./api.js";
import { formatDate, h, mount, plural, saveResponse, toast } from "./dom.js";
import {
  BANDS,
  LABEL_COLOURS,
  LABEL_ORDER,
  LABELS,
  labelName,
  labelOfFindings,
  originName,
  RULES,
  SEVERITIES,
} from "./labels.js";
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

// The label a citation shows: its verdict's, or the label its finding stands for (a missing
// source is reported once, as its rule's finding, with no verdict).
function citationLabel(citation) {
  return citation.verdict?.label || labelOfFindings(citation.findings) || null;
}

function severityInfo(severity) {
  return SEVERITIES.find((entry) => entry.severity === severity) || { name: severity };
}

// The last band of the catalogue is the one for citations no judge placed.
function bandInfo(band) {
  return BANDS.find((entry) => entry.band === band) || BANDS[BANDS.length - 1] || { name: "" };
}

function coloured(info) {
  return info.text_colour ? { color: info.text_colour, background: info.background } : {};
}

function severityBadge(severity) {
  const info = severityInfo(severity);
  return h(
    "span",
    { class: "sev", dataset: { severity }, style: coloured(info) },
    info.name || severity
  );
}

function bandBadge(risk) {
  const band = risk?.band ?? null;
  const info = bandInfo(band);
  const probability = risk?.problem_probability;
  return h(
    "span",
    {
      class: "band",
      dataset: { band: info.band || "" },
      title: info.description || "",
      style: coloured(info),
    },
    info.name,
    typeof probability === "number" ? ` · ${probability.toFixed(2)}` : null
  );
}

// One finding: rule, message, expected/found, differences and the evidence (URLs as text).
export function findingBlock(finding) {
  const rule = RULES[finding.rule] || {};
  const parts = [
    h(
      "div",
      { class: "finding-head" },
      severityBadge(finding.severity),
      h("span", { class: "mono finding-code", title: rule.summary || "" }, `${finding.rule} ${finding.slug}`),
      h("b", {}, finding.name || rule.name || "")
    ),
    h("p", { class: "finding-message" }, finding.message),
  ];
  if (finding.expected != null || finding.found != null) {
    parts.push(
      h(
        "p",
        { class: "finding-sides" },
        finding.expected != null ? [h("span", { class: "label" }, "Expected"), ` ${finding.expected} `] : null,
        finding.found != null ? [h("span", { class: "label" }, "Found"), ` ${finding.found}`] : null
      )
    );
  }
  if ((finding.differences || []).length) {
    parts.push(
      h(
        "table",
        { class: "diffs" },
        h("tr", {}, h("th", {}, "field"), h("th", {}, "the thesis has"), h("th", {}, "the other side has")),
        finding.differences.map((d) => h("tr", {}, h("td", {}, d.field), h("td", {}, d.expected), h("td", {}, d.found)))
      )
    );
  }
  for (const evidence of finding.evidence || []) {
    const where = [originName(evidence.origin)];
    if (evidence.page != null) where.push(`p. ${evidence.page}`);
    if (evidence.printed_page != null) where.push(`printed p. ${evidence.printed_page}`);
    parts.push(
      h(
        "div",
        { class: "finding-evidence" },
        h("span", { class: "label" }, where.join(" · ")),
        evidence.text != null ? h("blockquote", { class: "quote" }, evidence.text) : null,
        // Shown, never linked: a URL from a document or an index is not followed from here.
        evidence.url != null ? h("code", { class: "url" }, evidence.url) : null
      )
    );
  }
  if (rule.fix) parts.push(h("p", { class: "finding-fix" }, rule.fix));
  return h("div", { class: "finding", dataset: { rule: finding.rule, severity: finding.severity } }, parts);
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
  const label = citationLabel(citation);
  const source = citation.source;
  const reference = citation.reference || {};
  const findings = citation.findings || [];
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
      dataset: {
        label: label || "pending",
        band: citation.risk?.band || "",
        severity: findings[0]?.severity || "",
        citationId: citation.citation_id,
      },
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
        bandBadge(citation.risk),
        verdictBadge(label),
        confidence(verdict.confidence)
      ),
      findings.length ? h("div", { class: "findings" }, findings.map(findingBlock)) : null,
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
  // Most doubtful first (risk.rank; thesis order for a report without ranks).
  const citations = [...report.citations].sort(
    (a, b) => (a.risk?.rank ?? 0) - (b.risk?.rank ?? 0) || a.ordinal - b.ordinal
  );
  const summary = report.summary || {};
  const counts = summary.counts || {};
  const bandCounts = summary.bands || {};
  const total = summary.total ?? citations.length;
  const present = LABEL_ORDER.filter((label) => counts[label]);
  const entries = report.entries || [];
  // {kind: "label" | "band" | "severity", value} or null for all.
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

  function valueOf(citation, kind) {
    if (kind === "label") return citationLabel(citation) || "pending";
    if (kind === "band") return citation.risk?.band || bandInfo(null).band;
    return (citation.findings || []).some((f) => f.severity === filter.value) ? filter.value : "";
  }

  function matches(citation) {
    if (filter && valueOf(citation, filter.kind) !== filter.value) return false;
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

  function isActive(kind, value) {
    return filter?.kind === kind && filter?.value === value;
  }

  function setFilter(kind, value) {
    filter = kind === null || isActive(kind, value) ? null : { kind, value };
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
            class: `chip${isActive("label", label) ? " is-active" : ""}`,
            dataset: { filter: label },
            onclick: () => setFilter("label", label),
          },
          labelName(label),
          h("span", { class: "count" }, counts[label])
        )
      )
    );
    // Every band is counted, zero included; then the citations with errors and warnings.
    const findingCounts = Object.fromEntries(
      SEVERITIES.slice(0, 2).map((s) => [
        s.severity,
        citations.filter((c) => (c.findings || []).some((f) => f.severity === s.severity)).length,
      ])
    );
    mount(
      tiles,
      h(
        "button",
        { class: "summary-tile", onclick: () => setFilter(null) },
        h("span", { class: "n" }, total),
        h("span", { class: "t" }, "Citations")
      ),
      BANDS.map((band) =>
        h(
          "button",
          {
            class: `summary-tile${isActive("band", band.band) ? " is-active" : ""}`,
            dataset: { band: band.band },
            title: band.description,
            onclick: () => setFilter("band", band.band),
          },
          h("span", { class: "n", style: { color: band.accent } }, bandCounts[band.band] ?? 0),
          h("span", { class: "t" }, band.name)
        )
      ),
      SEVERITIES.slice(0, 2).map((severity) =>
        h(
          "button",
          {
            class: `summary-tile${isActive("severity", severity.severity) ? " is-active" : ""}`,
            dataset: { severity: severity.severity },
            onclick: () => setFilter("severity", severity.severity),
          },
          h("span", { class: "n" }, findingCounts[severity.severity]),
          h("span", { class: "t" }, `with ${severity.name.toLowerCase()}s`)
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
      summary.headline ? h("p", { class: "headline", id: "headline" }, summary.headline) : null,
      tiles,
      total ? healthBar(counts, total) : null
    ),
    problemsList(report),
    h("div", { class: "filters" }, chips, search),
    rerunBar,
    list,
    entriesSection(entries)
  );
  draw();
}

// Every error and warning, errors first: the first screen shows what to act on, including the
// reference list's (a wrong attachment). A finding at a citation and its entry is listed once.
function problemsList(report) {
  const rows = [];
  const seen = new Set();
  const ordered = [...report.citations].sort((a, b) => (a.risk?.rank ?? 0) - (b.risk?.rank ?? 0));
  for (const citation of ordered) {
    for (const finding of citation.findings || []) {
      seen.add(`${finding.rule}/${finding.fingerprint}`);
      rows.push([finding, `#${citation.ordinal} ${citation.marker}`]);
    }
  }
  for (const entry of report.entries || []) {
    for (const finding of entry.findings || []) {
      if (!seen.has(`${finding.rule}/${finding.fingerprint}`)) {
        rows.push([finding, `reference [${entry.label ?? "?"}]`]);
      }
    }
  }
  const rank = (severity) => SEVERITIES.findIndex((s) => s.severity === severity);
  const problems = rows
    .filter(([finding]) => rank(finding.severity) >= 0 && rank(finding.severity) < 2)
    .sort(([a], [b]) => rank(a.severity) - rank(b.severity));
  if (!problems.length) return null;
  return h(
    "section",
    { class: "card problems", id: "problems" },
    h("h3", {}, `Problems found (${plural(problems.length, "finding")})`),
    h(
      "ol",
      {},
      problems.map(([finding, where]) =>
        h(
          "li",
          { dataset: { rule: finding.rule } },
          severityBadge(finding.severity),
          " ",
          h("span", { class: "mono" }, finding.rule),
          " ",
          h("b", {}, finding.name),
          ` — ${where}: ${finding.message}`
        )
      )
    )
  );
}

// The reference list: entries with findings, each finding with its evidence.
function entriesSection(entries) {
  if (!entries.length) return null;
  const flagged = entries.filter((entry) => (entry.findings || []).length);
  return h(
    "section",
    { class: "card entries", id: "entries" },
    h(
      "h3",
      {},
      `Reference list: ${plural(entries.length, "entry", "entries")}, ${flagged.length} with findings`
    ),
    verificationSummary(entries),
    flagged.map((entry) =>
      h(
        "article",
        { class: "entry", dataset: { referenceId: entry.reference_id } },
        h(
          "div",
          { class: "citation-meta" },
          h("span", { class: "pill mono" }, `[${entry.label ?? "?"}]`),
          h("span", {}, `cited ${plural((entry.cited_by || []).length, "time")}`),
          entry.source ? h("span", {}, `linked to ${entry.source.title || entry.source.filename}`) : null
        ),
        h("p", { class: "reference-raw" }, entry.raw || ""),
        verificationLine(entry.verification),
        h("div", { class: "findings" }, entry.findings.map(findingBlock))
      )
    )
  );
}

// Reference verification (ADR 0024): where an entry was looked up, or plainly why it was not.
const VERIFICATION_NAMES = {
  verified: "looked up",
  not_found: "not found in any index",
  not_looked_up: "not looked up",
  pending: "being looked up",
};

function verificationLine(verification) {
  if (!verification) return null;
  let text;
  if (verification.status === "verified" && verification.work) {
    const work = verification.work;
    const doi = work.doi ? `, doi:${work.doi}` : "";
    text = `Found in ${work.index} (by ${work.matched_by || "search"}): “${work.title}” (${work.year || "n.d."}${doi})`;
  } else {
    const asked = (verification.looked_up || [])
      .map((q) => `${q.index} by ${q.by}: ${q.outcome}`)
      .join("; ");
    text = (verification.detail || VERIFICATION_NAMES[verification.status] || "") + (asked ? ` (${asked})` : "");
  }
  return h("p", { class: `verification ${verification.status}` }, text);
}

function verificationSummary(entries) {
  const counts = {};
  for (const entry of entries) {
    if (entry.verification) counts[entry.verification.status] = (counts[entry.verification.status] || 0) + 1;
  }
  const parts = Object.keys(VERIFICATION_NAMES)
    .filter((status) => counts[status])
    .map((status) => `${counts[status]} ${VERIFICATION_NAMES[status]}`);
  return parts.length ? h("p", { class: "verification-summary" }, `Reference verification: ${parts.join(", ")}`) : null;
}
