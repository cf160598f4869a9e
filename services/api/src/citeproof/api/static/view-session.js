// One session: upload the thesis and sources, watch them parse, start a verification run.

import { api } from "./api.js";
import { every, formatDate, h, mount, plural, toast } from "./dom.js";
import { documentsTable, isSettled, stateGroup } from "./documents.js";
import { rememberRun, rememberedRuns } from "./runs.js";
import { dropZone } from "./upload.js";

const POLL_MS = 1500;

function jobMessage(job, finished) {
  // Every file was a duplicate of an earlier upload: nothing was queued.
  if (job.total === 0) return "Already uploaded and parsed earlier — reused.";
  if (!finished) return `Parsing… ${job.succeeded + job.failed} of ${job.total} done.`;
  const failed = job.failed ? `, ${job.failed} failed (see the table below)` : "";
  return `Parsed ${job.succeeded} of ${job.total}${failed}.`;
}

// The account's open-access lookup switch (off by default): runs then look up an open-access
// PDF for cited references with a DOI and no uploaded PDF, where the server enables it.
function openAccessToggle() {
  const box = h("input", {
    type: "checkbox",
    id: "open-access-lookup",
    "data-testid": "open-access-lookup",
    disabled: true,
  });
  api
    .preferences()
    .then((prefs) => {
      box.checked = prefs.open_access_lookup;
      box.disabled = false;
    })
    .catch(() => {});
  box.addEventListener("change", async () => {
    box.disabled = true;
    try {
      const prefs = await api.setPreferences({ open_access_lookup: box.checked });
      box.checked = prefs.open_access_lookup;
    } catch (err) {
      box.checked = !box.checked;
      toast(err.detail, { error: true });
    } finally {
      box.disabled = false;
    }
  });
  return h(
    "label",
    { class: "small", for: "open-access-lookup" },
    box,
    " Find missing sources: for cited works with a DOI and no uploaded PDF, look up an " +
      "open-access copy (the DOIs go to the OpenAlex/Unpaywall service this server is set " +
      "up with; off unless the server enables it)"
  );
}

export async function renderSession(root, sessionId) {
  mount(root, h("div", { class: "loading" }, "Loading session…"));
  let session = await api.getSession(sessionId);
  let stopPolling = null;
  const jobWatchers = []; // stoppers of the job polls, ended when the user leaves the page

  const docsCard = h("div", { class: "card", id: "documents" });
  const runCard = h("div", { class: "card", id: "start-run" });
  const uploadStatus = h("div", { class: "stack small", id: "upload-status" });

  async function refresh() {
    session = await api.getSession(sessionId);
    draw();
    return session.documents.every(isSettled);
  }

  function pollUntilSettled() {
    if (stopPolling) stopPolling();
    stopPolling = every(POLL_MS, refresh);
  }

  async function upload(kind, files) {
    const message = `Uploading ${plural(files.length, "file")}…`;
    // The title lists the files, so a user with several uploads running can tell them apart.
    const names = files.map((file) => file.name).join(", ");
    const note = h("div", { class: "alert alert-info", title: names }, message);
    uploadStatus.prepend(note);
    try {
      const result = await api.upload(sessionId, kind, files);
      const duplicates = result.documents.filter((d) => d.duplicate).length;
      note.textContent =
        `Uploaded ${plural(result.documents.length, "file")}` +
        (duplicates ? ` (${duplicates} already known, reused)` : "") +
        ". Parsing…";
      watchJob(result.job_id, note);
      pollUntilSettled();
    } catch (err) {
      note.className = "alert alert-error";
      note.textContent = err.detail;
    }
  }

  function watchJob(jobId, note) {
    const stop = every(POLL_MS, async () => {
      const job = await api.getJob(jobId);
      const finished = job.total === 0 || ["succeeded", "partial", "failed"].includes(job.state);
      note.textContent = jobMessage(job, finished);
      note.className = `alert ${finished && job.failed ? "alert-warn" : "alert-info"}`;
      if (finished && !job.failed) setTimeout(() => note.remove(), 4000);
      return finished;
    });
    jobWatchers.push(stop);
  }

  async function deleteDocument(doc) {
    if (!confirm(`Delete ${doc.filename}? Its parsed text is removed too.`)) return;
    try {
      await api.deleteDocument(doc.id);
      await refresh();
    } catch (err) {
      toast(err.detail, { error: true });
    }
  }

  async function deleteSession() {
    if (!confirm(`Delete the session "${session.name}" with its documents and reports?`)) return;
    try {
      await api.deleteSession(sessionId);
      location.hash = "#/";
    } catch (err) {
      toast(err.detail, { error: true });
    }
  }

  async function startRun(thesisId, button) {
    button.disabled = true;
    try {
      const { run_id: runId } = await api.startRun(sessionId, thesisId);
      const thesis = session.documents.find((d) => d.id === thesisId);
      rememberRun(sessionId, {
        id: runId,
        started_at: new Date().toISOString(),
        thesis: thesis?.filename,
      });
      location.hash = `#/runs/${encodeURIComponent(runId)}`;
    } catch (err) {
      toast(err.detail, { error: true });
      button.disabled = false;
    }
  }

  function drawRunCard() {
    const theses = session.documents.filter((d) => d.kind === "thesis");
    const sources = session.documents.filter((d) => d.kind === "source");
    const select = h(
      "select",
      { id: "thesis-select" },
      theses.map((d) => h("option", { value: d.id }, d.title || d.filename))
    );
    const button = h(
      "button",
      {
        class: "btn btn-large",
        type: "button",
        id: "start-run-button",
        disabled: !theses.length,
        onclick: () => startRun(select.value, button),
      },
      "Verify citations"
    );
    const busy = session.documents.filter((d) => stateGroup(d.state) === "busy").length;
    const previous = rememberedRuns(sessionId);
    mount(
      runCard,
      h(
        "div",
        { class: "card-head" },
        h("h2", {}, "Verify"),
        h("span", { class: "hint" }, `${plural(sources.length, "source")} uploaded`)
      ),
      theses.length
        ? h(
            "div",
            { class: "stack" },
            h("label", { class: "field" }, "Thesis", select),
            busy
              ? h(
                  "p",
                  { class: "small muted" },
                  `${plural(busy, "document")} still parsing — the run will wait for them.`
                )
              : null,
            button
          )
        : h("p", { class: "muted small" }, "Upload a thesis to start a verification run."),
      previous.length
        ? h(
            "div",
            { class: "stack", style: { marginTop: "18px" } },
            h("h3", {}, "Earlier runs"),
            previous.map((run) =>
              h(
                "a",
                { href: `#/runs/${encodeURIComponent(run.id)}`, class: "small" },
                `${run.thesis || "Run"} · ${formatDate(run.started_at)}`
              )
            )
          )
        : null
    );
  }

  async function resetSources() {
    const question =
      "Remove every source from this session? The thesis stays; upload the sources again " +
      "(for example a corrected set) before the next run.";
    if (!confirm(question)) return;
    try {
      const { unlinked } = await api.resetSources(sessionId);
      toast(`${plural(unlinked, "source")} removed from the session.`);
      await refresh();
    } catch (err) {
      toast(err.detail, { error: true });
    }
  }

  function draw() {
    const hasSources = session.documents.some((d) => d.kind === "source");
    mount(
      docsCard,
      h(
        "div",
        { class: "card-head" },
        h("h2", {}, "Documents"),
        h(
          "div",
          { class: "row" },
          h("span", { class: "hint" }, plural(session.documents.length, "document")),
          hasSources
            ? h(
                "button",
                { class: "btn btn-ghost btn-small", type: "button", onclick: resetSources },
                "Remove all sources"
              )
            : null
        )
      ),
      documentsTable(session.documents, { onDelete: deleteDocument })
    );
    drawRunCard();
  }

  mount(
    root,
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h("div", { class: "crumbs" }, h("a", { href: "#/" }, "Sessions"), " / "),
        h("h1", {}, session.name),
        h("p", { class: "sub" }, `Created ${formatDate(session.created_at)}`)
      ),
      h("button", { class: "btn btn-danger btn-small", onclick: deleteSession }, "Delete session")
    ),
    h(
      "div",
      { class: "grid grid-side" },
      h(
        "div",
        { class: "stack" },
        h(
          "div",
          { class: "grid grid-2" },
          dropZone({
            title: "Thesis",
            hint:
              "Drop your thesis here or click to choose (PDF, DOCX, Markdown, HTML, text, " +
              "LaTeX .tex or a .zip of the LaTeX project)",
            multiple: false,
            testId: "thesis-input",
            onFiles: (files) => upload("thesis", files),
          }),
          dropZone({
            title: "Sources",
            hint: "Drop the PDFs of the cited sources here, as many as you like",
            multiple: true,
            testId: "sources-input",
            onFiles: (files) => upload("source", files),
          }),
          dropZone({
            title: "Library (optional)",
            hint:
              "Your reference manager's export: BibTeX .bib, RIS .ris, CSL JSON or Zotero RDF — " +
              "citations then link by key and attached file",
            multiple: true,
            testId: "library-input",
            accept: ".bib,.bibtex,.ris,.json,.rdf,.txt",
            onFiles: (files) => upload("bibliography", files),
          })
        ),
        openAccessToggle(),
        uploadStatus,
        docsCard
      ),
      runCard
    )
  );
  draw();
  if (!session.documents.every(isSettled)) pollUntilSettled();
  return () => {
    if (stopPolling) stopPolling();
    for (const stop of jobWatchers) stop();
  };
}
