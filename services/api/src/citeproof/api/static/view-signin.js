// Sign in with an API token; the token is checked with GET /v1/me before it is stored.

import { api, auth } from "./api.js";
import { h, mount } from "./dom.js";
import { signedIn } from "./user.js";

export function renderSignIn(root) {
  const error = h("div", { class: "alert alert-error", hidden: true });
  const input = h("input", {
    type: "password",
    id: "token",
    name: "token",
    autocomplete: "current-password",
    placeholder: "cp_…",
    required: true,
  });
  const button = h("button", { class: "btn btn-large", type: "submit" }, "Sign in");

  async function submit(event) {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    button.disabled = true;
    error.hidden = true;
    try {
      const me = await api.me(token);
      auth.token = token;
      signedIn(me);
      location.hash = "#/";
    } catch (err) {
      error.textContent =
        err.status === 401 ? "That token was not accepted. Check it and try again." : err.detail;
      error.hidden = false;
      input.focus();
    } finally {
      button.disabled = false;
    }
  }

  mount(
    root,
    h(
      "section",
      { class: "signin card" },
      h("h1", {}, "Sign in to citeproof"),
      h(
        "p",
        { class: "lead" },
        "Check that every citation in your thesis is backed by the source it cites."
      ),
      h(
        "form",
        { onsubmit: submit },
        // Lets password managers file the token under a name.
        h("input", {
          type: "text",
          name: "username",
          autocomplete: "username",
          value: "citeproof API token",
          hidden: true,
        }),
        h("label", { class: "field", for: "token" }, "API token", input),
        error,
        button
      ),
      h(
        "p",
        { class: "help" },
        "No token yet? Ask your administrator, or create one on the server with ",
        h("code", {}, "citeproof tokens create --user you"),
        "."
      )
    )
  );
  input.focus();
}
