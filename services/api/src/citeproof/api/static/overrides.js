// Correcting the reference → source link from the report: when citeproof matched a reference to
// the wrong upload (or to none), the user picks the right one; the next run uses it.

import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { stateGroup } from "./documents.js";

const NO_SOURCE = "";

export function sourcePicker({ sessionId, thesisId, citation, onSaved }) {
  const reference = citation.reference || {};
  const box = h("div", { class: "source-picker" });
  const open = h(
    "button",
    { class: "link-btn", type: "button", onclick: () => show() },
    citation.source ? "Wrong source?" : "Link a source"
  );
  box.append(open);

  async function show() {
    open.disabled = true;
    let session;
    try {
      session = await api.getSession(sessionId);
    } catch (err) {
      toast(err.detail, { error: true });
      open.disabled = false;
      return;
    }
    const sources = session.documents.filter(
      (d) => d.kind === "source" && stateGroup(d.state) !== "failed"
    );
    const select = h(
      "select",
      { "aria-label": `Source for reference ${reference.label}` },
      h("option", { value: NO_SOURCE }, "No uploaded source (report as missing)"),
      sources.map((d) =>
        h(
          "option",
          { value: d.id, selected: d.id === citation.source?.document_id },
          d.title || d.filename
        )
      )
    );
    const save = h("button", { class: "btn btn-small", type: "button" }, "Save");
    const cancel = h("button", { class: "btn btn-ghost btn-small", type: "button" }, "Cancel");
    const form = h(
      "div",
      { class: "row" },
      h("span", { class: "small muted" }, `Reference ${reference.label} cites`),
      select,
      save,
      cancel
    );
    cancel.addEventListener("click", () => box.replaceChildren(open), { once: true });
    save.addEventListener("click", async () => {
      save.disabled = true;
      try {
        await api.setReferenceSource(sessionId, thesisId, reference.label, select.value || null);
        const chosen = sources.find((d) => d.id === select.value);
        toast(
          `Reference ${reference.label} now cites ${
            chosen ? chosen.title || chosen.filename : "no uploaded source"
          }. Re-run to check it again.`
        );
        const note = h("span", { class: "small muted" }, "Saved — applies to the next run.");
        box.replaceChildren(note);
        onSaved();
      } catch (err) {
        toast(err.detail, { error: true });
        save.disabled = false;
      }
    });
    open.disabled = false;
    box.replaceChildren(form);
    select.focus();
  }

  return box;
}
