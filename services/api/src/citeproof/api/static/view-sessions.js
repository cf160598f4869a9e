// The list of the user's sessions (workspaces), and creating a new one.

import { api } from "./api.js";
import { formatDate, h, mount, toast } from "./dom.js";

export async function renderSessions(root) {
  mount(root, h("div", { class: "loading" }, "Loading sessions…"));
  const { items } = await api.listSessions();

  const name = h("input", {
    type: "text",
    id: "session-name",
    placeholder: "Name, e.g. Chapter 2 draft",
    "aria-label": "Session name",
    maxlength: 200,
  });
  const create = h("button", { class: "btn", type: "submit" }, "New session");

  async function submit(event) {
    event.preventDefault();
    create.disabled = true;
    try {
      const session = await api.createSession(name.value.trim() || defaultName());
      location.hash = `#/sessions/${encodeURIComponent(session.id)}`;
    } catch (err) {
      toast(err.detail, { error: true });
      create.disabled = false;
    }
  }

  const list = items.length
    ? h(
        "div",
        { class: "session-list" },
        items.map((session) =>
          h(
            "a",
            {
              class: "card session-card",
              href: `#/sessions/${encodeURIComponent(session.id)}`,
              dataset: { sessionId: session.id },
            },
            h("span", { class: "name" }, session.name),
            h("span", { class: "muted small" }, `Created ${formatDate(session.created_at)}`)
          )
        )
      )
    : h(
        "div",
        { class: "card empty" },
        h("strong", {}, "No sessions yet"),
        "A session holds one thesis and the sources it cites. Create one to start."
      );

  mount(
    root,
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h("h1", {}, "Sessions"),
        h("p", { class: "sub" }, "Each session holds a thesis, its sources and its reports.")
      ),
      h("form", { class: "new-session", onsubmit: submit }, name, create)
    ),
    list
  );
}

function defaultName() {
  return `Session ${new Date().toLocaleDateString(undefined, { dateStyle: "medium" })}`;
}
