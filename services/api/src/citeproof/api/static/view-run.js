// A verification run: live progress (server-sent events, or polling when they are unavailable),
// then the report once the run has finished.

import { api } from "./api.js";
import { every, formatDate, h, mount, plural, toast } from "./dom.js";
import { LABEL_ORDER } from "./labels.js";
import { renderReport, verdictBadge } from "./report.js";
import { rememberRun, sessionOfRun } from "./runs.js";

const POLL_MS = 1500;
const STAGES = [
  ["parse", "Parsing documents"],
  ["retrieve", "Finding evidence"],
  ["judge", "Judging citations"],
];
const FINISHED = new Set(["completed", "cancelled", "failed"]);
const STATUS_TEXT = {
  waiting_for_documents: "Waiting for documents",
  planning: "Planning",
  retrieving: "Retrieving evidence",
  judging: "Judging",
  verifying: "Verifying references",
  completed: "Completed",
  cancelled: "Cancelled",
  failed: "Failed",
};

export async function renderRun(root, runId) {
  mount(root, h("div", { class: "loading" }, "Loading run…"));
  let run = await api.getRun(runId);
  let reportShown = false;

  const statusCard = h("section", { class: "card", id: "run-status" });
  const reportArea = h("div", { id: "report-area" });
  const sessionId = run.session_id || sessionOfRun(runId);
  const sessionHref = `#/sessions/${encodeURIComponent(sessionId || "")}`;
  const sessionCrumb = h("a", { href: sessionHref }, "Session");

  mount(
    root,
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h(
          "div",
          { class: "crumbs" },
          h("a", { href: "#/" }, "Sessions"),
          sessionId ? [" / ", sessionCrumb] : null,
          " / "
        ),
        h("h1", {}, "Verification run"),
        h(
          "p",
          { class: "sub small" },
          `Started ${formatDate(run.created_at)} · `,
          h("span", { class: "mono" }, runId)
        )
      )
    ),
    statusCard,
    h("div", { style: { height: "18px" } }),
    reportArea
  );

  // The session's name makes a better breadcrumb than its id; it is not needed for anything else.
  if (sessionId) {
    api.getSession(sessionId).then(
      (session) => {
        sessionCrumb.textContent = session.name;
      },
      () => {}
    );
  }

  function drawStatus() {
    const status = run.status;
    const finished = FINISHED.has(status);
    const waiting = (run.waiting_for || []).filter(Boolean);
    mount(
      statusCard,
      h(
        "div",
        { class: "status-line" },
        h(
          "span",
          {
            class: `status-badge is-${status}${finished ? "" : " is-live"}`,
            id: "run-status-badge",
            dataset: { status },
          },
          STATUS_TEXT[status] || status
        ),
        status === "completed" ? h("span", { class: "small muted" }, completedSummary()) : null,
        h("span", { class: "spacer" }),
        finished
          ? null
          : h("button", { class: "btn btn-ghost btn-small", onclick: cancel }, "Cancel run")
      ),
      waiting.length && !finished
        ? h(
            "div",
            { class: "alert alert-info", style: { marginTop: "14px" } },
            `Waiting for ${waiting.join(", ")}. ` +
              "The run continues by itself as soon as they are ready."
          )
        : null,
      run.message
        ? h(
            "div",
            {
              class: `alert ${status === "failed" ? "alert-error" : "alert-info"}`,
              style: { marginTop: "14px" },
            },
            run.message
          )
        : null,
      // A completed run needs no progress bars: one line, and the report below gets the room.
      status === "completed"
        ? null
        : h(
            "div",
            { class: "stages" },
            STAGES.map(([key, name]) => stageBar(key, name, run.progress?.[key], finished))
          ),
      finished ? null : verdictsSoFar(run.counts || {})
    );
  }

  function completedSummary() {
    const documents = run.progress?.parse?.total ?? 0;
    // Every citation gets a label (source_missing ones never reach the judge), so count labels.
    const citations = Object.values(run.counts || {}).reduce((sum, n) => sum + n, 0);
    const finishedAt = run.finished_at ? ` · finished ${formatDate(run.finished_at)}` : "";
    // A re-check says how much it took over from the earlier run instead of doing it again.
    const reused = run.progress?.judge?.reused ?? 0;
    const again = reused ? ` (${reused} unchanged, verdicts reused)` : "";
    return (
      `${plural(documents, "document")} parsed · ${plural(citations, "citation")} checked` +
      again +
      finishedAt
    );
  }

  // While judging, the verdicts already decided, so the user sees results arrive.
  function verdictsSoFar(counts) {
    const labels = LABEL_ORDER.filter((label) => counts[label]);
    if (!labels.length) return null;
    return h(
      "div",
      { class: "row", style: { marginTop: "16px" } },
      h("span", { class: "small muted" }, "So far:"),
      labels.map((label) => {
        const badge = verdictBadge(label);
        badge.append(h("span", { class: "count" }, counts[label]));
        return badge;
      })
    );
  }

  function stageBar(key, name, progress, finished) {
    const done = progress?.done ?? 0;
    const total = progress?.total ?? 0;
    const complete = total > 0 ? done >= total : finished;
    const pct = total > 0 ? Math.min(100, (100 * done) / total) : complete ? 100 : 0;
    const detail = stageDetail(key, progress);
    return h(
      "div",
      { class: `stage${complete ? " is-done" : ""}` },
      h(
        "div",
        { class: "stage-head" },
        h("span", {}, name),
        h("span", { class: "muted" }, total ? `${done} / ${total}` : "–")
      ),
      h("div", { class: "bar" }, h("span", { style: { width: `${pct}%` } })),
      detail ? h("div", { class: "small muted", style: { marginTop: "4px" } }, detail) : null
    );
  }

  // What a stage did besides its count (absent fields are zero): documents already parsed when
  // the run started, source passages embedded on demand for this run's claims (embedding moved
  // from parsing to the first claim that needs a passage), evidence or verdicts reused from an
  // earlier run of the same claims (a re-check).
  function stageDetail(key, progress) {
    const parts = [];
    if (progress?.embedded) parts.push(`${progress.embedded} passages embedded`);
    if (progress?.reused) {
      parts.push(`${progress.reused} ${key === "parse" ? "already parsed" : "reused"}`);
    }
    return parts.join(" · ");
  }

  async function cancel() {
    try {
      await api.cancelRun(runId);
      toast("Cancelling the run…");
    } catch (err) {
      toast(err.detail, { error: true });
    }
  }

  // A new run of the same thesis (after the user corrected source links in the report).
  async function rerun() {
    const { run_id: newRunId } = await api.startRun(sessionId, run.thesis_document_id);
    rememberRun(sessionId, { id: newRunId, started_at: new Date().toISOString() });
    location.hash = `#/runs/${encodeURIComponent(newRunId)}`;
  }

  async function showReport() {
    if (reportShown) return;
    reportShown = true;
    mount(reportArea, h("div", { class: "loading" }, "Loading report…"));
    try {
      renderReport(reportArea, runId, await api.report(runId), {
        sessionId,
        thesisId: run.thesis_document_id,
        rerun,
      });
    } catch (err) {
      reportShown = false;
      mount(reportArea, h("div", { class: "alert alert-error" }, err.detail));
    }
  }

  // Live updates: the event stream when it works, polling when it does not.
  let closeStream = null;
  let stopPolling = null;
  function stopLive() {
    if (closeStream) closeStream();
    if (stopPolling) stopPolling();
    closeStream = stopPolling = null;
  }

  function update(next) {
    run = { ...run, ...next };
    drawStatus();
    if (!FINISHED.has(run.status)) return false;
    stopLive();
    if (run.status !== "failed") showReport();
    return true;
  }

  function poll() {
    stopPolling = every(POLL_MS, async () => update(await api.getRun(runId)));
  }

  function stream() {
    const source = new EventSource(api.eventsUrl(runId));
    closeStream = () => source.close();
    source.addEventListener("progress", (event) => update(JSON.parse(event.data)));
    source.addEventListener("done", async () => {
      source.close();
      update(await api.getRun(runId));
    });
    source.onerror = () => {
      // EventSource would reconnect by itself; after a failure, predictable polling is better.
      if (source.readyState === EventSource.OPEN || stopPolling) return;
      source.close();
      closeStream = null;
      poll();
    };
  }

  drawStatus();
  if (!update(run)) {
    if (typeof EventSource === "function") stream();
    else poll();
  }
  return stopLive;
}
